import { sameHiddenClass } from '@podconfig/testing';
import { describe, expect, it } from 'vitest';
import { readObjectLayout } from './object-layout.js';

const bytesOf = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));
const slice = (buf: Buffer, range: { start: number; end: number } | undefined): string =>
  range === undefined ? '' : buf.toString('utf8', range.start, range.end);
const cut = (buf: Buffer, range: { start: number; end: number }): string =>
  buf.toString('utf8', 0, range.start) + buf.toString('utf8', range.end);

// Strings that a byte walk must not take for structure: quotes, backslashes, braces, brackets, commas, UTF-8.
const TRICKY = 'a "quoted" \\ back\\slash {not} [an] "spec":{x}, ü 🚀 \\"';

describe(readObjectLayout.name, () => {
  it('finds metadata.managedFields (with its comma) and the spec, and stops there', () => {
    const object = {
      kind: 'Pod',
      apiVersion: 'v1',
      metadata: { name: 'web', annotations: { note: TRICKY }, managedFields: [{ manager: TRICKY, fieldsV1: { 'f:spec': { 'f:x': {} } } }] },
      spec: { containers: [{ name: 'c', args: [TRICKY, '}', ']'] }], nested: { deeper: [[{}], []] } },
      status: { phase: 'Running' },
    };
    const buf = bytesOf(object);
    const layout = readObjectLayout(buf, 0, buf.length);
    expect(layout?.specAssumed).toBe(false);
    expect(JSON.parse(slice(buf, layout?.spec))).toEqual(object.spec);
    expect(JSON.parse(cut(buf, layout!.managedFields!))).toEqual({ ...object, metadata: { name: 'web', annotations: { note: TRICKY } } });
  });

  it('finds the end of a pod\'s spec, followed by its status, by search as the walk does', () => {
    const spec = { containers: [{ name: 'c', args: [TRICKY, '},"status":{', '}'] }], nested: { deeper: [[{}], []], status: 'x' } };
    for (const object of [{ kind: 'Pod', metadata: { name: 'web' }, spec, status: { phase: 'Running', conditions: [{ status: 'True' }] } }, { spec: {}, status: {} }]) {
      const buf = bytesOf(object);
      const walked = readObjectLayout(buf, 0, buf.length);
      expect(readObjectLayout(buf, 0, buf.length, undefined, true)).toStrictEqual(walked);
      expect(JSON.parse(slice(buf, walked?.spec))).toEqual(object.spec);
    }
    // Without a status after it, the spec is walked.
    const last = bytesOf({ metadata: { name: 'web' }, spec });
    expect(JSON.parse(slice(last, readObjectLayout(last, 0, last.length, undefined, true)?.spec))).toEqual(spec);
    // A status object nested in the spec (an ephemeral volume's claim template can hold one in its
    // managedFields) ends the range early: not one JSON value, which the decoder checks.
    const fieldsV1 = { 'f:a': {}, status: { x: 1 } };
    const ephemeral = { volumes: [{ ephemeral: { volumeClaimTemplate: { metadata: { managedFields: [{ fieldsV1 }] }, spec: {} } } }] };
    const misread = bytesOf({ spec: ephemeral, status: {} });
    expect(() => JSON.parse(slice(misread, readObjectLayout(misread, 0, misread.length, undefined, true)?.spec))).toThrow(SyntaxError);
  });

  it('cuts a first, only or middle managedFields member so that the rest still parses', () => {
    for (const metadata of [{ managedFields: [{ manager: 'm' }], name: 'web' }, { managedFields: [] }, { name: 'web', managedFields: [{ manager: 'm' }], labels: { a: 'b' } }]) {
      const buf = bytesOf({ metadata, spec: {} });
      const layout = readObjectLayout(buf, 0, buf.length);
      const { managedFields: _dropped, ...rest } = metadata;
      expect(JSON.parse(cut(buf, layout!.managedFields!))).toEqual({ metadata: rest, spec: {} });
    }
  });

  it('reads an object without managedFields or spec, and an empty one', () => {
    const buf = bytesOf({ kind: 'ConfigMap', metadata: { name: 'x' }, data: { a: '1' }, count: 3, ok: true, none: null });
    const none = { managedFields: undefined, spec: undefined, specAssumed: false };
    expect(readObjectLayout(buf, 0, buf.length)).toStrictEqual(none);
    expect(readObjectLayout(Buffer.from('{}'), 0, 2)).toStrictEqual(none);
  });

  it('finds the object inside a watch line by its range', () => {
    const object = { metadata: { name: 'web' }, spec: { a: 1 } };
    const buf = bytesOf({ type: 'MODIFIED', object });
    const at = buf.indexOf('"object":') + '"object":'.length;
    expect(JSON.parse(slice(buf, readObjectLayout(buf, at, buf.length - 1)?.spec))).toEqual({ a: 1 });
  });

  it('takes a spec length that fits as an assumption, and scans when it does not fit', () => {
    const buf = bytesOf({ metadata: { name: 'web' }, spec: { a: 1 }, status: {} });
    const real = readObjectLayout(buf, 0, buf.length)!.spec!;
    const length = real.end - real.start;
    expect(readObjectLayout(buf, 0, buf.length, length)).toStrictEqual({ managedFields: undefined, spec: real, specAssumed: true });
    // One byte off: the assumed end is not a value's end, so the spec is scanned.
    const scanned = { managedFields: undefined, spec: real, specAssumed: false };
    expect(readObjectLayout(buf, 0, buf.length, length - 1)).toStrictEqual(scanned);
    expect(readObjectLayout(buf, 0, buf.length, 10_000)).toStrictEqual(scanned);
  });

  it('gives every layout one V8 hidden class, with or without managedFields and an assumed spec', () => {
    const withAll = bytesOf({ metadata: { name: 'web', managedFields: [{ manager: 'm' }] }, spec: { a: 1 } });
    const plain = bytesOf({ metadata: { name: 'web' } });
    const first = readObjectLayout(withAll, 0, withAll.length)!;
    const specLength = first.spec!.end - first.spec!.start;
    const others = [
      ...Array.from({ length: 50 }, () => readObjectLayout(withAll, 0, withAll.length, specLength)!),
      readObjectLayout(withAll, 0, withAll.length)!,
      readObjectLayout(plain, 0, plain.length)!,
      readObjectLayout(Buffer.from('{}'), 0, 2)!,
    ];
    expect(others[0]!.specAssumed).toBe(true);
    expect(others.filter((layout) => !sameHiddenClass(first, layout))).toHaveLength(0);
  });

  it('gives up on bytes that are not compact JSON members (the caller parses the whole line)', () => {
    for (const text of ['{ "spec": {} }', '{"spec":{"a":1}', '{"metadata":{"name":"x"},"spec":{"a":"unterminated}}', '{"a" :1}', '[1]', '{"a":1,}']) {
      const buf = Buffer.from(text);
      expect(readObjectLayout(buf, 0, buf.length), text).toBeUndefined();
    }
  });
});
