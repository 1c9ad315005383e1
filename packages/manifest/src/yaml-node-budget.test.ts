import { describe, expect, it } from 'vitest';
import { parseManifestDocument } from './parse-manifest-document.js';
import { Rejection } from './rejection.js';
import { MAX_YAML_NODES, yamlBudgetProblem, YAML_NODE_COUNT_MIN_CHARS } from './yaml-node-budget.js';

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

describe(yamlBudgetProblem.name, () => {
  it('counts scalars, collections, list items and aliases, up to the limit and not one past it', () => {
    // `- a` is two nodes: the item and its scalar.
    expect(yamlBudgetProblem('- a\n'.repeat(MAX_YAML_NODES / 2))).toBeUndefined();
    expect(yamlBudgetProblem('- a\n'.repeat(MAX_YAML_NODES / 2 + 1))?.kind).toBe('too-many-nodes');
    expect(yamlBudgetProblem('- "a"\n'.repeat(MAX_YAML_NODES / 2 + 1))?.kind).toBe('too-many-nodes');
    expect(yamlBudgetProblem(`[${"'a', ".repeat(MAX_YAML_NODES)}]`)?.kind).toBe('too-many-nodes');
    expect(yamlBudgetProblem(`- &x a\n${'- *x\n'.repeat(MAX_YAML_NODES / 2)}`)?.kind).toBe('too-many-nodes');
    // Comments and long scalars are no nodes.
    expect(yamlBudgetProblem(`# ${'x'.repeat(100_000)}\na: |\n${'  line\n'.repeat(60_000)}`)).toBeUndefined();
  });

  it('counts only the first document: later ones are never parsed', () => {
    expect(yamlBudgetProblem(`---\n${POD}---\n${'- {}\n'.repeat(MAX_YAML_NODES)}`)).toBeUndefined();
  });

  it('names the line and column where flow nesting passes 64 levels, without quoting the text', () => {
    const text = `# secret-ish comment\nspec:\n  a: ${'['.repeat(65)}${']'.repeat(65)}\n`;
    expect(yamlBudgetProblem(text)).toEqual({ kind: 'too-deep', reason: 'invalid YAML at line 3, column 70: nested more than 64 levels deep' });
    expect(yamlBudgetProblem(`a: ${'['.repeat(64)}${']'.repeat(64)}\n`)).toBeUndefined();
  });
});

describe('parseManifestDocument() with a large YAML manifest', () => {
  it('refuses 10 MB of `- {}` before parsing it, as too large and no pod, where the parse took over a gigabyte', () => {
    const rejection = rejectionOf('- {}\n'.repeat(2_000_000));
    expect(rejection.code).toBe('PODCONFIG_MANIFEST_TOO_LARGE');
    expect(rejection.mayDefinePod).toBe(false);
    expect(rejection.message).toBe(`its first YAML document has more than ${MAX_YAML_NODES} nodes (scalars and collections; a pod has a few hundred): parsing it could take gigabytes of memory`);
  });

  it('refuses deep flow nesting as invalid YAML, and counts nothing under the size it starts at', () => {
    const padding = `# ${'x'.repeat(YAML_NODE_COUNT_MIN_CHARS)}\n`;
    const deep = `${padding}a: ${'['.repeat(3_000_000)}${']'.repeat(3_000_000)}\n`;
    expect(rejectionOf(deep)).toMatchObject({ code: 'PODCONFIG_MANIFEST_INVALID', message: 'invalid YAML at line 2, column 68: nested more than 64 levels deep' });
    // Under the size, the parser's own limits answer (a list is no pod).
    expect(rejectionOf('- {}\n'.repeat(1_000)).message).toBe('manifest is not a mapping: the document is an array');
  });

  it('parses a large pod within the limit (2,000 variables of env, 90 KB)', () => {
    const env = Array.from({ length: 2_000 }, (_, i) => `    - name: VAR_${i}\n      value: "value-${i}"\n`).join('');
    const text = `${POD}    env:\n${env}`;
    expect(text.length).toBeGreaterThan(YAML_NODE_COUNT_MIN_CHARS);
    const pod = parseManifestDocument(text) as { spec: { containers: { env: unknown[] }[] } };
    expect(pod.spec.containers[0]?.env).toHaveLength(2_000);
  });
});
