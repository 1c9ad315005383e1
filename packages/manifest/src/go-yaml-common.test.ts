import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCommonYaml } from './go-yaml-common.js';
import { parseGoYaml, readComposedYaml } from './go-yaml.js';

const fixtures = join(import.meta.dirname, '..', '..', '..', 'fixtures');
const yamlFiles = (dir: string): string[] => readdirSync(dir).filter((f) => f.endsWith('.yaml')).map((f) => join(dir, f));

/** What the composed reading gives, or its error's message. */
const composed = (text: string): unknown => {
  try {
    return readComposedYaml(text);
  } catch (err: unknown) {
    return err instanceof Error ? `error: ${err.message}` : err;
  }
};

/** A deterministic generator of small YAML documents in and around the common subset (some invalid on purpose). */
function generator(seed: number): () => string {
  let state = seed;
  const rand = (n: number): number => {
    state = (state * 48271) % 2147483647;
    return state % n;
  };
  const pick = <T>(items: readonly T[]): T => items[rand(items.length)]!;
  const plains = ['a', 'x y', 'yes', 'No', 'on', '0x1F', '017', '1e3', '.5', '1_000', '~', 'null', '-1', '.nan', 'a#b', 'a # c', 'http://h:1/p',
    '--flag=1', '2001-01-01', '18446744073709551616', '<<', '__proto__', 'é', 'a:b', '?x', '*a', '&a', '!x', '|', "'", '"', ''];
  const quoted = ['"a"', '"a\\tb"', '"\\u00e9"', '"\\q"', "'it''s'", '"multi\n  line"', "'multi\n\n  line'", '""', '"a #b"'];
  const keys = ['a', 'b', 'name', 'x y', '"q"', "'s'", '1', '0x1', 'yes', 'null', '1.5', '<<', '__proto__', 'k:', '? k', 'a\tb'];
  const flowItem = (depth: number): string =>
    depth < 2 && rand(5) === 0 ? flowText(depth + 1) : pick([...plains.filter((p) => !/[,[\]{}]/.test(p)), ...quoted.slice(0, 5)]);
  const flowText = (depth: number): string => {
    const isMap = rand(3) === 0;
    const items = Array.from({ length: rand(4) }, () => (isMap ? `${pick(keys.slice(0, 10))}${pick([': ', ':', ' : '])}${flowItem(depth)}` : flowItem(depth)));
    return `${isMap ? '{' : '['}${pick(['', ' ', '\t'])}${items.join(pick([', ', ',', ',\n   ', ', # c\n   ']))}${rand(8) === 0 ? ',' : ''}${isMap ? '}' : ']'}`;
  };
  const scalarText = (indent: number): string => {
    const r = rand(10);
    if (r < 5) return pick(plains);
    if (r < 8) return pick(quoted).replace('\n  ', `\n${' '.repeat(indent + rand(3))}`);
    const body = ' '.repeat(indent + pick([0, 1, 2, 2]));
    return `${pick(['|', '>', '|-', '>+', '|2', '| # c', '|x'])}\n${body}${pick(['line', 'a: b', '# text', ''])}${rand(2) ? `\n${body}two` : ''}`;
  };
  const comment = (): string => (rand(6) === 0 ? pick([' # c', '# c', '  #x # y']) : '');
  const blockMap = (indent: number, depth: number): string =>
    Array.from({ length: 1 + rand(4) }, () => {
      const lead = rand(8) === 0 ? `${' '.repeat(rand(indent + 2))}# comment\n` : '';
      const key = `${' '.repeat(indent)}${pick(keys)}${pick([':', ':', ' :'])}`;
      const r = rand(10);
      if (depth > 3 || r < 6) return `${lead}${key} ${rand(6) === 0 ? flowText(0) : scalarText(indent + 2)}${comment()}`;
      return `${lead}${key}${comment()}\n${r < 8 ? blockMap(indent + pick([1, 2, 4]), depth + 1) : blockSeq(indent + pick([0, 2]), depth + 1)}`;
    }).join('\n');
  const blockSeq = (indent: number, depth: number): string =>
    Array.from({ length: 1 + rand(3) }, () =>
      rand(3) === 0 ? `${' '.repeat(indent)}- ${blockMap(indent + 2, depth + 1).trimStart()}` : `${' '.repeat(indent)}- ${scalarText(indent + 2)}${comment()}`,
    ).join('\n');
  return () => {
    let text = `${rand(5) === 0 ? pick(['---\n', '--- # c\n', '# top\n', '---']) : ''}${blockMap(0, 0)}${pick(['\n', '', '\n# end\n', '\n---\nb: [\n', '\n...\n'])}`;
    if (rand(4) === 0) {
      const at = rand(text.length);
      text = text.slice(0, at) + pick([' ', '\n', '', '#', ':', '-', '\t']) + text.slice(at + rand(2));
    }
    return text;
  };
}

describe('readCommonYaml()', () => {
  it('reads every static pod and valid manifest fixture, to the value the composed reading gives', () => {
    const files = [...yamlFiles(join(fixtures, 'static-pods')), ...yamlFiles(join(fixtures, 'manifests', 'valid'))];
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      const value = readCommonYaml(text);
      expect([file, value]).not.toEqual([file, undefined]);
      expect([file, value]).toEqual([file, readComposedYaml(text)]);
    }
  });

  it('gives what the composed reading gives for every generated document it takes, and takes no document that reading refuses', () => {
    const next = generator(20_261_123);
    let taken = 0;
    let valid = 0;
    for (let i = 0; i < 4000; i++) {
      const text = next();
      const want = composed(text);
      if (typeof want !== 'string' || !want.startsWith('error:')) valid++;
      const got = readCommonYaml(text);
      if (got === undefined) continue;
      taken++;
      expect([text, got]).toEqual([text, want]);
    }
    // The subset must be most of the valid input, or the comparison above says little.
    expect(taken).toBeGreaterThan(valid * 0.6);
  });

  it('leaves to the composed reading what is outside the subset, so that parseGoYaml still reads it or names the error', () => {
    const outside: [string, unknown][] = [
      ['a: &x 1\nb: *x\n', { a: 1, b: 1 }],
      ['a: !!str 12\n', { a: '12' }],
      ['base: {x: 1}\nc:\n  <<: {x: 2}\n', { base: { x: 1 }, c: { x: 2 } }],
      ['? a\n: 1\n', { a: 1 }],
      ['%YAML 1.1\n---\na: 1\n', { a: 1 }],
      ['a: 1\n...\n', { a: 1 }],
      ['a: [[1], {b: [2]}, [c: d]]\n', { a: [[1], { b: [2] }, [{ c: 'd' }]] }],
      ['a:\t1\n', { a: 1 }],
      ['[1, 2]\n', [1, 2]],
      ['', null],
    ];
    // Fewer blank lines after an empty value: in the subset, and the same value both ways.
    for (const text of [`a:\n  b:\n${'\n'.repeat(300)}c: 2\n`, `a:\n-\n${'\n'.repeat(300)}c: 2\n`]) {
      expect([text, readCommonYaml(text)]).toEqual([text, readComposedYaml(text)]);
      expect(readCommonYaml(text)).not.toBeUndefined();
    }
    for (const [text, value] of outside) {
      expect([text, readCommonYaml(text)]).toEqual([text, undefined]);
      expect([text, parseGoYaml(text)]).toEqual([text, value]);
    }
    const errors: [string, string][] = [
      ['a: 1\na: 2\n', 'invalid YAML at line 2, column 1: Map keys must be unique: "a" is repeated'],
      ['a: .inf\n', 'invalid YAML at line 1, column 4: NaN or an infinity, which JSON cannot hold'],
      ['a: b: c\n', 'invalid YAML at line 1'],
      ['a:\n  - x\n - y\n', 'invalid YAML at line 3'],
      ['a: "x\n', 'invalid YAML at line'],
      ['a: 1 #c\nb:#c\n  c: 1\n', 'invalid YAML at line'],
      ['a: [x,#c\n  y]\n', 'invalid YAML at line 1, column 7: Comments must be separated from other tokens by white space characters'],
      ['a: [x]#c\n', 'invalid YAML at line 1, column 7: Comments must be separated'],
      ['a: {x: 1}#c\n', 'invalid YAML at line 1, column 10: Comments must be separated'],
      ['a: ["x" "y"]\n', 'invalid YAML at line 1, column 9: Missing , or : between flow sequence items'],
      ['a: {"x" "y"}\n', 'invalid YAML at line 1, column 9: Missing , or : between flow map items'],
      ['a: [, x]\n', 'invalid YAML at line 1, column 5: Unexpected , in flow sequence'],
      ['a: {x: 1 y: 2}\n', 'invalid YAML at line 1, column 8: Block collections are not allowed within flow collections'],
      ['a: 1\nb\n', 'invalid YAML at line 2, column 1: Implicit map keys need to be followed by map values'],
      ['a: 1\n- b\n', 'invalid YAML at line 2, column 1: Implicit keys need to be on a single line'],
      // Blank lines after an empty value count towards the next key's 1,024 characters in the composer.
      [`a:\n  b:\n${'\n'.repeat(1030)}c: 2\n`, 'invalid YAML at line 1033, column 1: The : indicator must be at most 1024 chars'],
      [`a:\n-\n${'\n'.repeat(1030)}c: 2\n`, 'invalid YAML at line 1033, column 1: The : indicator must be at most 1024 chars'],
      [`a:\n  b:\n${'\r\n'.repeat(512)}c: 2\n`, 'invalid YAML at line 515, column 1: The : indicator must be at most 1024 chars'],
      ['--- a: 1\nb: 2\n', 'invalid YAML at line 1, column 5: Block collection cannot start on same line with directives-end marker'],
    ];
    for (const [text, message] of errors) {
      expect([text, readCommonYaml(text)]).toEqual([text, undefined]);
      expect(() => parseGoYaml(text)).toThrow(message);
    }
  });
});
