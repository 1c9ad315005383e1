import { describe, expect, it } from 'vitest';
import { hasLaterYamlDocuments } from './later-yaml-documents.js';

const later = (text: string): boolean => hasLaterYamlDocuments(Buffer.from(text));
const POD = 'apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n';

describe(hasLaterYamlDocuments.name, () => {
  it('finds a document with content after the first', () => {
    expect(later(`${POD}---\n${POD}`)).toBe(true);
    expect(later(`---\n${POD}---\n${POD}`)).toBe(true);
    expect(later(`# header\n---\n${POD}---\nkind: Pod\n`)).toBe(true);
    expect(later(`${POD}--- {a: 1}\n`)).toBe(true);
    expect(later(`${POD}---\r\nb: 1\r\n`)).toBe(true);
    expect(later(`${POD}...\n---\n# c\n---\nb: 1`)).toBe(true);
  });

  it('finds none in one document, whatever markers, comments and white space surround it', () => {
    expect(later(POD)).toBe(false);
    expect(later(`---\n${POD}`)).toBe(false);
    expect(later(`# header\n---\n${POD}`)).toBe(false);
    expect(later(`\uFEFF---\n${POD}---\n`)).toBe(false);
    expect(later(`${POD}---\n# only a comment\n\n---\n...\n`)).toBe(false);
    expect(later(`${POD}...\n`)).toBe(false);
    expect(later('')).toBe(false);
  });

  it('takes only a marker at the start of a line, followed by white space or the end, as a document start', () => {
    expect(later(`${POD}  note: |\n    ---\n    b: 1\n`)).toBe(false);
    expect(later(`${POD}----\nb: 1\n`)).toBe(false);
    expect(later(`${POD}---b: 1\n`)).toBe(false);
    expect(later(`${POD}key: "a\n  --- b"\n`)).toBe(false);
  });

  it('reads JSON text as one value', () => {
    expect(later(`  {"kind": "Pod",\n"a": "\n---\nb: 1"}`)).toBe(false);
  });
});
