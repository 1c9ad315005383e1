import { describe, expect, it } from 'vitest';
import { parseManifestDocument } from './parse-manifest-document.js';
import { Rejection } from './rejection.js';
import { MAX_YAML_TOKENS, yamlBudget, YAML_TOKEN_COUNT_MIN_CHARS } from './yaml-token-budget.js';

/** The Rejection `parseManifestDocument` throws for `text`. */
function rejectionOf(text: string): Rejection {
  try {
    parseManifestDocument(text);
  } catch (err: unknown) {
    if (err instanceof Rejection) return err;
    throw err;
  }
  return expect.unreachable('accepted');
}

const POD = 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n  - name: c\n    image: nginx\n';

describe(yamlBudget.name, () => {
  it('counts scalars, indicators, brackets, anchors, tags and aliases, up to the limit and not one past it', () => {
    // `- a` is two tokens: the indicator and the scalar.
    expect(yamlBudget('- a\n'.repeat(MAX_YAML_TOKENS / 2)).kind).toBe('within');
    expect(yamlBudget('- a\n'.repeat(MAX_YAML_TOKENS / 2 + 1)).kind).toBe('too-many-tokens');
    expect(yamlBudget('- "a"\n'.repeat(MAX_YAML_TOKENS / 2 + 1)).kind).toBe('too-many-tokens');
    expect(yamlBudget(`- &x a\n${'- *x\n'.repeat(MAX_YAML_TOKENS / 2)}`).kind).toBe('too-many-tokens');
    expect(yamlBudget(`${'- !!str a\n'.repeat(MAX_YAML_TOKENS / 3 + 1)}`).kind).toBe('too-many-tokens');
    // Shapes of indicators alone, which cost the parser as much as nodes (3-4 GB for 10 MB of them).
    for (const bomb of ['?\n'.repeat(MAX_YAML_TOKENS + 1), ':\n'.repeat(MAX_YAML_TOKENS + 1), `[${','.repeat(MAX_YAML_TOKENS)}`, '- {}\n'.repeat(MAX_YAML_TOKENS / 3 + 1)]) {
      expect(yamlBudget(bomb).kind, bomb.slice(0, 8)).toBe('too-many-tokens');
    }
    // White space, comments and a block scalar's lines are no tokens.
    expect(yamlBudget(`# ${'x'.repeat(100_000)}\na: |\n${'  line\n'.repeat(60_000)}`).kind).toBe('within');
  });

  it('says where the first document ends, counting nothing after it', () => {
    const later = `---\n${'- {}\n'.repeat(MAX_YAML_TOKENS)}`;
    expect(yamlBudget(`${POD}${later}`)).toEqual({ kind: 'within', firstDocumentEnd: POD.length });
    expect(yamlBudget(`---\n${POD}...\n${later}`)).toEqual({ kind: 'within', firstDocumentEnd: 4 + POD.length });
    expect(yamlBudget(POD)).toEqual({ kind: 'within', firstDocumentEnd: POD.length });
  });

  it('names the line and column where flow nesting passes 64 levels, without quoting the text', () => {
    const text = `# secret-ish comment\nspec:\n  a: ${'['.repeat(65)}${']'.repeat(65)}\n`;
    expect(yamlBudget(text)).toEqual({ kind: 'too-deep', reason: 'invalid YAML at line 3, column 70: nested more than 64 levels deep' });
    expect(yamlBudget(`a: ${'['.repeat(64)}${']'.repeat(64)}\n`).kind).toBe('within');
  });
});

describe('parseManifestDocument() with a large YAML manifest', () => {
  it('refuses 10 MB of `- {}` before parsing it, as too large and no pod, where the parse took over a gigabyte', () => {
    const rejection = rejectionOf('- {}\n'.repeat(2_000_000));
    expect(rejection.code).toBe('PODCONFIG_MANIFEST_TOO_LARGE');
    expect(rejection.mayDefinePod).toBe(false);
    expect(rejection.message).toBe(`its first YAML document has more than ${MAX_YAML_TOKENS} tokens (scalars, indicators and brackets; a pod has a few hundred): parsing it could take gigabytes of memory`);
  });

  it('parses only the first document of a large text: a pod followed by 10 MB of `- {}` is the pod (the parser built the rest: 1.8 GB)', () => {
    const text = `${POD}---\n${'- {}\n'.repeat(2_000_000)}`;
    expect(parseManifestDocument(text)).toEqual(parseManifestDocument(POD));
  });

  it('refuses deep flow nesting as invalid YAML, and counts nothing under the size it starts at', () => {
    const padding = `# ${'x'.repeat(YAML_TOKEN_COUNT_MIN_CHARS)}\n`;
    const deep = `${padding}a: ${'['.repeat(3_000_000)}${']'.repeat(3_000_000)}\n`;
    expect(rejectionOf(deep)).toMatchObject({ code: 'PODCONFIG_MANIFEST_INVALID', message: 'invalid YAML at line 2, column 68: nested more than 64 levels deep' });
    // Under the size, the parser's own limits answer (a list is no pod).
    expect(rejectionOf('- {}\n'.repeat(1_000)).message).toBe('manifest is not a mapping: the document is an array');
  });

  it('parses a large pod within the limit (2,000 variables of env, 90 KB)', () => {
    const env = Array.from({ length: 2_000 }, (_, i) => `    - name: VAR_${i}\n      value: "value-${i}"\n`).join('');
    const text = `${POD}    env:\n${env}`;
    expect(text.length).toBeGreaterThan(YAML_TOKEN_COUNT_MIN_CHARS);
    const pod = parseManifestDocument(text) as { spec: { containers: { env: unknown[] }[] } };
    expect(pod.spec.containers[0]?.env).toHaveLength(2_000);
  });
});
