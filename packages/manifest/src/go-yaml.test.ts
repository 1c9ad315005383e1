import { describe, expect, it } from 'vitest';
import { GoYamlError, libraryProblem, parseGoYaml, resolvePlainScalar } from './go-yaml.js';
import { yaml } from './yaml-library.js';

const read = (text: string): unknown => parseGoYaml(text);

describe('resolvePlainScalar()', () => {
  // Each checked against kubectl 1.32 (`kubectl config view` of `token: <text>`).
  it('reads null, YAML 1.1 booleans, Go integers and floats, and leaves the rest strings, as go-yaml v2 does', () => {
    const cases: [string, unknown][] = [
      ['', null], ['~', null], ['null', null], ['NULL', null], ['Null', null],
      ['yes', true], ['Yes', true], ['on', true], ['ON', true], ['y', true], ['true', true], ['TRUE', true],
      ['no', false], ['off', false], ['N', false], ['False', false],
      ['yEs', 'yEs'], ['t', 't'], ['nil', 'nil'],
      ['0012345', 5349], ['017', 15], ['08', 8], ['0o17', 15], ['0x1F', 31], ['0x_1F', 31], ['0b101', 5], ['-0b101', -5],
      ['+12', 12], ['1_000', 1000], ['1_', 1], ['-0', 0], ['9223372036854775808', 9223372036854775808],
      ['1e3', 1000], ['1.5', 1.5], ['.5', 0.5], ['+.5', 0.5], ['1.', 1], ['09.5', 9.5], ['1e+5', 100000],
      ['.inf', Infinity], ['-.Inf', -Infinity], ['1e400', '1e400'], ['-1e400', '-1e400'],
      ['0xFFFFFFFFFFFFFFFFFF', '0xFFFFFFFFFFFFFFFFFF'], ['0b2', '0b2'], ['0x', '0x'], ['1e', '1e'], ['+', '+'],
      ['2001-01-01', '2001-01-01'], ['1:20', '1:20'], ['_1', '_1'], ['..5', '..5'], ['.5.', '.5.'], ['<<', '<<'],
      // Strings to go-yaml v2, numbers (NaN) to the yaml library's YAML 1.1 schema, which read `find .` as NaN.
      ['.', '.'], ['-.', '-.'], ['e1', 'e1'], ['E0', 'E0'], ['.e5', '.e5'], ['-e5', '-e5'],
    ];
    for (const [text, want] of cases) expect([text, resolvePlainScalar(text)]).toEqual([text, want]);
    expect(resolvePlainScalar('.NaN')).toBeNaN();
  });
});

describe('parseGoYaml()', () => {
  it('resolves plain scalars only, and honours explicit tags', () => {
    expect(read('a: 12\nb: "12"\nc: |\n  yes\nd: !!str 12\ne: !!binary dG9r\nf: !foo 12\ng: !!null ""\nh: [yes, "no"]\n')).toEqual({
      a: 12, b: '12', c: 'yes\n', d: '12', e: 'tok', f: '12', g: null, h: [true, 'no'],
    });
    expect(() => read('a: !!int "x"\n')).toThrow(GoYamlError);
    expect(read('a: ! 12345\nb: !!int 0x1F\n')).toEqual({ a: '12345', b: 31 });
    for (const float of ['1.5', '1e3']) expect(() => read(`a: !!int ${float}\n`)).toThrow('!!int');
  });

  it('applies merge keys as go-yaml v2 does: over the keys before, under the keys after, earlier list entries first', () => {
    const text = [
      'base: &b {token: base, user: x}',
      'over: {token: own, <<: *b}',
      'under: {<<: *b, token: own}',
      'list: {<<: [{token: first}, {token: second, as: z}]}',
      'nested: {<<: {<<: *b, as: q}}',
    ].join('\n');
    expect(read(text)).toEqual({
      base: { token: 'base', user: 'x' },
      over: { token: 'base', user: 'x' },
      under: { token: 'own', user: 'x' },
      list: { token: 'first', as: 'z' },
      nested: { token: 'base', user: 'x', as: 'q' },
    });
    expect(() => read('a: &a [1]\nb: {<<: *a}\n')).toThrow('merge key');
    expect(() => read('b: {<<: 1}\n')).toThrow('merge key');
  });

  it('turns mapping keys into strings and refuses NaN, infinities and alias bombs', () => {
    expect(read('1: a\ntrue: b\n')).toEqual({ '1': 'a', true: 'b' });
    expect(() => read('a: .nan\n')).toThrow('invalid YAML at line 1, column 4: NaN or an infinity, which JSON cannot hold');
    for (const nullKey of ['~: a\n', 'null: a\n', '? \n: a\n']) expect(() => read(nullKey)).toThrow('mapping key is null');
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 8; i++) bomb.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10).fill(`*${String.fromCharCode(96 + i)}`).join(', ')}]`);
    expect(() => read(bomb.join('\n'))).toThrow('the document contains excessive aliasing: refusing a possible alias bomb');
  });

  it('accepts the aliasing go-yaml v2 accepts: 60 pods sharing one anchored spec of 100 variables (95 % of the nodes from aliases)', () => {
    const env = Array.from({ length: 100 }, (_, i) => `    - {name: V${i}, value: x}`).join('\n');
    const pods = Array.from({ length: 60 }, (_, i) => `- {name: p${i}, spec: *spec}`).join('\n');
    const value = read(`shared: &spec\n  containers:\n  - name: c\n    env:\n${env}\nitems:\n${pods}\n`) as { items: { spec: unknown }[] };
    expect(value.items).toHaveLength(60);
    expect(value.items[59]?.spec).toEqual(value.items[0]?.spec);
  });

  it('resolves each alias to the last anchor of its name before it, in one walk of the document', () => {
    expect(read('a: &x 1\nb: *x\nc: &x 2\nd: *x\n')).toEqual({ a: 1, b: 1, c: 2, d: 2 });
    expect(() => read('a: &x [1, *x]\n')).toThrow('the value of anchor "x" contains itself');
    // The library's Alias.resolve() walks the whole document per alias: 40,000 of these took four minutes, past the
    // test timeout. No timing is asserted: the point is that they all resolve.
    const refs = read(`x: &x v\nrefs:\n${'- *x\n'.repeat(40_000)}`) as { refs: string[] };
    expect(refs.refs).toHaveLength(40_000);
    expect(new Set(refs.refs)).toEqual(new Set(['v']));
  });

  it('leaves scalars with tags go-yaml does not resolve (!!seq, !!map) strings, and takes !!merge << as a merge key', () => {
    expect(read('a: !!seq foo\nb: !!map bar\nc: !!set baz\n')).toEqual({ a: 'foo', b: 'bar', c: 'baz' });
    expect(read('base: &b {k: 1}\nm: {!!merge <<: *b, j: 2}\n')).toEqual({ base: { k: 1 }, m: { k: 1, j: 2 } });
    expect(read('m: {"<<": {k: 1}}\n')).toEqual({ m: { '<<': { k: 1 } } });
  });

  it('writes map keys as sigs.k8s.io/yaml does: ints exactly, floats as float32 %g, and refuses uint64 keys', () => {
    expect(read('1000000.0: a\n0.00001: b\n3.141592653589793: c\n0.0001: d\n1.5: e\n-2.0: f\n1e3: g\n.inf: h\n')).toEqual({
      '1e+06': 'a', '1e-05': 'b', '3.1415927': 'c', '0.0001': 'd', '1.5': 'e', '-2': 'f', '1000': 'g', '.inf': 'h',
    });
    expect(read('9007199254740993: a\n0x10: b\n')).toEqual({ '9007199254740993': 'a', '16': 'b' });
    expect(() => read('18446744073709551615: a\n')).toThrow('a mapping key is an unsigned integer beyond int64');
    // Go's map holds an int and a float apart, and NaN apart from NaN: no repeats (the later one wins in the JSON).
    expect(read('1: a\n1.0: b\n')).toEqual({ '1': 'b' });
    expect(read('.nan: a\n.NaN: b\n')).toEqual({ '.nan': 'b' });
  });

  it('finds a key repeated at the end of a mapping of 100,000 keys in one pass (the library\'s own check is O(n²): 40,000 keys took 9 s)', () => {
    const keys = Array.from({ length: 100_000 }, (_, i) => `k${i}: v`).join('\n');
    expect(() => read(`${keys}\nk50000: again\n`)).toThrow('invalid YAML at line 100001, column 1: Map keys must be unique: "k50000" is repeated');
  }, 10_000);

  it('refuses a key repeated in one mapping, by resolved value and type, at the first repeat in the text', () => {
    const at = (text: string): [number, number] | undefined => {
      try {
        read(text);
        return undefined;
      } catch (err: unknown) {
        if (!(err instanceof GoYamlError)) throw err;
        expect(err.problem).toMatch(/^Map keys must be unique: ".+" is repeated$/);
        return [err.line, err.column];
      }
    };
    expect(at('a: 1\nb: 2\na: 3\n')).toEqual([3, 1]);
    expect(at('m: {1: a, 0x1: b}\n')).toEqual([1, 11]);
    expect(at('m: {a: 1, "a": 2}\n')).toEqual([1, 11]);
    expect(at('x:\n  y: 1\n  y: 2\nx: 3\n')).toEqual([3, 3]);
    expect(at('- {k: 1}\n- {k: 1, k: 2}\n')).toEqual([2, 10]);
    // Not repeats: a string and a number of the same text, merge keys, a merged key set again.
    expect(read('m: {"1": a, 1: b}\n')).toEqual({ m: { '1': 'b' } });
    expect(read('b: &b {k: 1}\nm: {<<: *b, <<: *b, k: 2}\n')).toEqual({ b: { k: 1 }, m: { k: 2 } });
    // Linear: a mapping of 100,000 keys with a repeat at the end (the yaml library's own check is quadratic).
    const many = Array.from({ length: 100_000 }, (_, i) => `k${i}: v`).join('\n');
    expect(at(`${many}\nk5: again\n`)).toEqual([100_001, 1]);
  });

  it('keeps a __proto__ key as an own member, never as the prototype, in mappings and merges', () => {
    const value = read('a: {__proto__: {polluted: 1}}\nb: {<<: {__proto__: {polluted: 2}}}\n') as Record<string, object>;
    for (const key of ['a', 'b']) {
      expect(Object.getPrototypeOf(value[key])).toBe(Object.prototype);
      expect(Object.keys(value[key] ?? {})).toEqual(['__proto__']);
    }
  });

  it('reads only the first document, gives syntax errors a position without the source, and null for no document', () => {
    expect(read('a: 1\n---\n: : [\n')).toEqual({ a: 1 });
    expect(read('')).toBeNull();
    expect(read('# only a comment\n')).toBeNull();
    expect(() => read(`${'['.repeat(5000)}${']'.repeat(5000)}`)).toThrow(/^invalid YAML at line 1, column \d+: nested too deeply$/);
    const err = (() => {
      try {
        read('a: 1\nsecret: [unclosed\n');
      } catch (e: unknown) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(GoYamlError);
    expect((err as Error).message).toMatch(/^invalid YAML at line \d+, column \d+: /);
    expect((err as Error).message).not.toContain('unclosed');
  });

  it("never quotes the input in the yaml library's errors (a value, a tag, an escape, a token), keeping their line, column and words", () => {
    const problem = (text: string): string => {
      try {
        read(text);
      } catch (err: unknown) {
        if (!(err instanceof GoYamlError)) throw err;
        expect(err.message).toBe(`invalid YAML at line ${err.line}, column ${err.column}: ${err.problem}`);
        expect(err.message).not.toMatch(/SECRET/i);
        return err.message;
      }
      throw new Error(`read ${JSON.stringify(text)}`);
    };
    expect([
      problem('token: |Hunter2SECRET\n  x\n'),
      problem('token: >-SECRET\n  x\n'),
      problem('token: !abc!x SECRET\n'),
      problem('token: !SECRET! x\n'),
      problem('token: "pa\\qSECRET"\n'),
      problem('token: "\\xZZ-secret"\n'),
      problem('%YAML secret\n---\na: 1\n'),
      problem('}SECRET\n'),
      problem('- a\nSECRET\n: b\n'),
      problem('token: @SECRET\n'),
      problem('token: "SECRET\n'),
    ]).toEqual([
      'invalid YAML at line 1, column 9: Block scalar header includes extra characters',
      'invalid YAML at line 1, column 10: Block scalar header includes extra characters',
      'invalid YAML at line 1, column 8: Could not resolve tag',
      'invalid YAML at line 1, column 8: Could not resolve tag',
      'invalid YAML at line 1, column 11: Invalid escape sequence in a double-quoted scalar',
      'invalid YAML at line 1, column 9: Invalid escape sequence in a double-quoted scalar',
      'invalid YAML at line 1, column 7: Invalid or unsupported directive',
      'invalid YAML at line 1, column 1: Unexpected flow-map-end token in YAML document',
      'invalid YAML at line 2, column 1: Unexpected scalar at node end',
      'invalid YAML at line 1, column 8: Plain value cannot start with reserved character @',
      'invalid YAML at line 2, column 1: Missing closing "quote',
    ]);
    // A token the parser refused is quoted after a `: ` (as the "}" above): cut there whatever the token is.
    const refused = new yaml.YAMLParseError([0, 1], 'UNEXPECTED_TOKEN', 'Unexpected scalar token in YAML stream: "SECRET"');
    expect(libraryProblem(refused)).toBe('Unexpected scalar token in YAML stream');
    expect(libraryProblem(new yaml.YAMLParseError([0, 1], 'UNEXPECTED_TOKEN', 'Not a YAML token: SECRET'))).toBe('Not a YAML token');
    // The `:` indicator named in a message is not where a quote begins.
    expect(problem('a: ["x" "y"]\n')).toBe('invalid YAML at line 1, column 9: Missing , or : between flow sequence items');
    expect(problem(`a:\n  b:\n${'\n'.repeat(1030)}c: 2\n`)).toBe('invalid YAML at line 1033, column 1: The : indicator must be at most 1024 chars after the start of an implicit block mapping key');
    expect(libraryProblem(new yaml.YAMLParseError([0, 1], 'TAG_RESOLVE_FAILED', "Verbatim tags aren't resolved, so !<SECRET> is invalid."))).toBe('Could not resolve tag');
  });
});
