import { describe, expect, it } from 'vitest';
import { COLD_CHANGES, ScannedWatchEvent, WALK_FROM } from './scanned-watch-event.js';
import type { DecodedSpec, WatchDecodeOptions } from './watch-decode-options.js';
import { scanWatchHead } from './watch-head.js';

type Json = Record<string, unknown>;

/** A pod in the API server's layout, with managedFields, and strings a byte walk could trip on. */
const apiPod = (o: { rv?: string; image?: string; phase?: string; name?: string } = {}): Json => ({
  kind: 'Pod',
  apiVersion: 'v1',
  metadata: {
    name: o.name ?? 'web-1',
    namespace: 'team-a',
    uid: '6c5d1f0e-1111-4222-8333-944455556666',
    resourceVersion: o.rv ?? '1',
    annotations: { note: 'a "quoted" {brace} \\ ü' },
    managedFields: [{ manager: 'kubelet', operation: 'Update', fieldsV1: { 'f:status': { 'f:phase': {} } } }],
  },
  spec: { nodeName: 'node-a', containers: [{ name: 'c', image: o.image ?? 'nginx:1', args: ['--x="{}"', '\\'] }] },
  status: { phase: o.phase ?? 'Running' },
});

const withoutManagedFields = (pod: Json): Json => {
  const { managedFields: _dropped, ...metadata } = pod.metadata as Json;
  return { ...pod, metadata };
};

/** A memo as big as a big set's: lines are walked. */
const bigMemo = (): Map<string, DecodedSpec> => {
  const memo = new Map<string, DecodedSpec>();
  for (let i = 0; i < WALK_FROM; i++) memo.set(`team-z/filler-${i}`, { spec: {} });
  return memo;
};

const decode = (type: 'ADDED' | 'MODIFIED' | 'DELETED', object: unknown, options: WatchDecodeOptions): Json => {
  const bytes = Buffer.from(JSON.stringify({ type, object }));
  const head = scanWatchHead(bytes, 0, bytes.length);
  if (head === undefined) throw new Error('test line has no head');
  return new ScannedWatchEvent(head, bytes, 1, 'GET /api/v1/pods', options).decodeObject();
};

/** Decodes COLD_CHANGES changes in a small set of its own: from then on, this process walks small sets' changes. */
const warmUp = (): void => {
  const options = { dropManagedFields: true, specMemo: new Map<string, DecodedSpec>() };
  decode('ADDED', apiPod({ name: 'warm-up' }), options);
  for (let i = 0; i < COLD_CHANGES; i++) decode('MODIFIED', apiPod({ name: 'warm-up', rv: String(i + 2) }), options);
};

const digestOf = (spec: unknown): DecodedSpec => ({ bytes: { digest: expect.any(String) as string, length: JSON.stringify(spec).length }, spec });

describe('ScannedWatchEvent decode options', () => {
  // First in the file: it needs the process's cold changes not yet used up.
  it(`specMemo, a small set: the process's first ${COLD_CHANGES} changes are parsed whole too, later ones walked`, () => {
    const memo = new Map<string, DecodedSpec>();
    const options = { dropManagedFields: true, specMemo: memo };
    const first = decode('ADDED', apiPod({ rv: '1' }), options);
    const cold = decode('MODIFIED', apiPod({ rv: '2', phase: 'Failed' }), options);
    expect(cold).toEqual(withoutManagedFields(apiPod({ rv: '2', phase: 'Failed' })));
    expect(cold.spec).toBe(first.spec);
    expect(memo.get('team-a/web-1')).toEqual({ spec: first.spec });
    for (let i = 0; i < COLD_CHANGES - 1; i++) decode('MODIFIED', apiPod({ rv: String(i + 3) }), options);
    expect(memo.get('team-a/web-1')).toEqual({ spec: first.spec });
    const warm = decode('MODIFIED', apiPod({ rv: '1000', phase: 'Failed' }), options);
    expect(warm).toEqual(withoutManagedFields(apiPod({ rv: '1000', phase: 'Failed' })));
    expect(warm.spec).toBe(first.spec);
    expect(memo.get('team-a/web-1')).toEqual(digestOf(first.spec));
  });

  it('dropManagedFields: the object comes without managedFields, everything else as JSON.parse gives it', () => {
    const pod = apiPod();
    expect(decode('MODIFIED', pod, { dropManagedFields: true })).toEqual(withoutManagedFields(pod));
    expect(decode('MODIFIED', pod, {})).toEqual(pod);
  });

  it('specMemo, a small set: a first sight is parsed whole, later lines are walked: compared once, then by digest', () => {
    warmUp();
    const memo = new Map<string, DecodedSpec>();
    const options = { dropManagedFields: true, specMemo: memo };
    const first = decode('ADDED', apiPod({ rv: '1' }), options);
    expect(first).toEqual(withoutManagedFields(apiPod({ rv: '1' })));
    // Parsed whole: no digest yet.
    expect(memo.get('team-a/web-1')).toEqual({ spec: first.spec });

    // Walked: the parsed spec is compared with the remembered one, and its digest remembered.
    const statusChange = decode('MODIFIED', apiPod({ rv: '2', phase: 'Failed' }), options);
    expect(statusChange).toEqual(withoutManagedFields(apiPod({ rv: '2', phase: 'Failed' })));
    expect(statusChange.spec).toBe(first.spec);
    expect(memo.get('team-a/web-1')).toEqual(digestOf(first.spec));
    expect(decode('MODIFIED', apiPod({ rv: '3', phase: 'Pending' }), options).spec).toBe(first.spec);

    const specChange = decode('MODIFIED', apiPod({ rv: '4', image: 'nginx:2' }), options);
    expect(specChange).toEqual(withoutManagedFields(apiPod({ rv: '4', image: 'nginx:2' })));
    expect(specChange.spec).not.toBe(first.spec);
    expect(memo.get('team-a/web-1')?.spec).toBe(specChange.spec);
    expect(decode('MODIFIED', apiPod({ rv: '5', image: 'nginx:2' }), options).spec).toBe(specChange.spec);

    // Another object with the same spec gets the spec decoded for it, not another's.
    expect(decode('ADDED', apiPod({ rv: '6', name: 'web-2' }), options).spec).not.toBe(specChange.spec);
    expect(memo.get('team-a/web-2')).toEqual({ spec: expect.any(Object) });
    decode('DELETED', apiPod({ rv: '7', image: 'nginx:2' }), options);
    expect(memo.has('team-a/web-1')).toBe(false);
    // A DELETED first sight leaves nothing behind.
    decode('DELETED', apiPod({ rv: '8', name: 'web-9' }), options);
    expect(memo.has('team-a/web-9')).toBe(false);
    expect(memo.size).toBe(1);
  });

  it(`specMemo, from ${WALK_FROM} objects: lines are walked, and a spec whose bytes have the remembered digest is not parsed`, () => {
    const memo = bigMemo();
    const options = { dropManagedFields: true, specMemo: memo };
    const first = decode('ADDED', apiPod({ rv: '1' }), options);
    expect(first).toEqual(withoutManagedFields(apiPod({ rv: '1' })));
    expect(memo.get('team-a/web-1')).toEqual({ bytes: { digest: expect.any(String), length: JSON.stringify(first.spec).length }, spec: first.spec });

    const statusChange = decode('MODIFIED', apiPod({ rv: '2', phase: 'Failed' }), options);
    expect(statusChange).toEqual(withoutManagedFields(apiPod({ rv: '2', phase: 'Failed' })));
    expect(statusChange.spec).toBe(first.spec);

    // Same length, other bytes: the digest tells them apart.
    const specChange = decode('MODIFIED', apiPod({ rv: '3', image: 'nginx:2' }), options);
    expect(specChange.spec).not.toBe(first.spec);
    expect(specChange).toEqual(withoutManagedFields(apiPod({ rv: '3', image: 'nginx:2' })));
    expect(memo.get('team-a/web-1')?.spec).toBe(specChange.spec);

    // Another length: found by scanning again.
    const longer = decode('MODIFIED', apiPod({ rv: '4', image: 'registry.example/nginx:1.27' }), options);
    expect(longer).toEqual(withoutManagedFields(apiPod({ rv: '4', image: 'registry.example/nginx:1.27' })));
    expect(memo.get('team-a/web-1')?.spec).toBe(longer.spec);

    // Another object with the same spec bytes gets the spec decoded for it, not another's.
    const other = decode('ADDED', apiPod({ rv: '5', name: 'web-2', image: 'registry.example/nginx:1.27' }), options);
    expect(other.spec).not.toBe(longer.spec);
    expect(memo.size).toBe(WALK_FROM + 2);

    decode('DELETED', apiPod({ rv: '6', image: 'registry.example/nginx:1.27' }), options);
    expect(memo.has('team-a/web-1')).toBe(false);
  });

  it('specMemo: specs remembered without a digest while the set was small are compared once walked in a big set, then get their digest', () => {
    const memo = new Map<string, DecodedSpec>();
    const options = { dropManagedFields: true, specMemo: memo };
    const first = decode('ADDED', apiPod({ rv: '1' }), options);
    const second = decode('ADDED', apiPod({ rv: '2', name: 'web-2' }), options);
    for (const [key, value] of bigMemo()) memo.set(key, value);

    const statusChange = decode('MODIFIED', apiPod({ rv: '3', phase: 'Failed' }), options);
    expect(statusChange).toEqual(withoutManagedFields(apiPod({ rv: '3', phase: 'Failed' })));
    expect(statusChange.spec).toBe(first.spec);
    expect(memo.get('team-a/web-1')).toEqual({ bytes: { digest: expect.any(String), length: JSON.stringify(first.spec).length }, spec: first.spec });
    expect(decode('MODIFIED', apiPod({ rv: '4' }), options).spec).toBe(first.spec);

    const changed = decode('MODIFIED', apiPod({ rv: '5', name: 'web-2', image: 'nginx:2' }), options);
    expect(changed).toEqual(withoutManagedFields(apiPod({ rv: '5', name: 'web-2', image: 'nginx:2' })));
    expect(changed.spec).not.toBe(second.spec);
    expect(memo.get('team-a/web-2')).toEqual({ bytes: { digest: expect.any(String), length: JSON.stringify(changed.spec).length }, spec: changed.spec });
  });

  it('agrees with JSON.parse on generated pods whose strings hold quotes, backslashes, braces and UTF-8', () => {
    let seed = 42;
    const random = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const alphabet = ['a', '"', '\\', '{', '}', '[', ']', ',', ':', 'ü', '🚀', ' ', '\n', '\u0000'];
    const text = (): string => Array.from({ length: Math.floor(random() * 12) }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
    const memo = bigMemo();
    let extra: unknown = [text()];
    let previous: unknown;
    let reused = 0;
    for (let i = 0; i < 300; i++) {
      if (random() < 0.3) extra = random() < 0.5 ? [text(), { k: text() }] : { [text()]: text() };
      const pod = apiPod({ rv: String(i + 1) });
      (pod.metadata as Json).labels = { l: text() };
      (pod.spec as Json).extra = extra;
      (pod.status as Json).message = text();
      const decoded = decode('MODIFIED', pod, { dropManagedFields: true, specMemo: memo });
      expect(decoded).toEqual(withoutManagedFields(JSON.parse(JSON.stringify(pod)) as Json));
      if (decoded.spec === previous) reused++;
      previous = decoded.spec;
    }
    expect(reused).toBeGreaterThan(100);
  });

  it('decodes a line with two spec keys as JSON.parse does (the last wins), and neither uses nor fills the memo with it', () => {
    // Also the case a search for a pod spec's end must not take for one spec: a second one before the status.
    const memo = bigMemo();
    const options = { specMemo: memo };
    const first = decode('ADDED', apiPod({ rv: '1' }), options);
    const pod = JSON.stringify(apiPod({ rv: '2' }));
    const doubled = Buffer.from(`{"type":"MODIFIED","object":${pod.replace(',"status":', ',"spec":{"nodeName":"other"},"status":')}}`);
    const head = scanWatchHead(doubled, 0, doubled.length)!;
    const decoded = new ScannedWatchEvent(head, doubled, 1, 'GET /api/v1/pods', options).decodeObject();
    expect(decoded.spec).toEqual({ nodeName: 'other' });
    expect(memo.get('team-a/web-1')?.spec).toBe(first.spec);
    expect(decode('MODIFIED', apiPod({ rv: '3' }), options).spec).toBe(first.spec);
  });

  it('decodes right when the search for metadata\'s end misreads it: a nested spec is not taken for the object\'s', () => {
    // Not an ObjectMeta (it has no spec key at any depth), but JSON: the search for metadata's end stops at
    // the nested spec, whose bytes stay the same while the object's spec changes.
    const pod = (rv: string, image: string): Json => {
      const p = apiPod({ rv, image });
      (p.metadata as Json).extra = { x: { y: [1] }, spec: { z: 1 }, w: 1 };
      return p;
    };
    for (const dropManagedFields of [false, true]) {
      const options = { dropManagedFields, specMemo: bigMemo() };
      const expected = (p: Json): Json => (dropManagedFields ? withoutManagedFields(p) : p);
      expect(decode('ADDED', pod('1', 'nginx:1'), options)).toEqual(expected(pod('1', 'nginx:1')));
      expect(decode('MODIFIED', pod('2', 'nginx:2'), options)).toEqual(expected(pod('2', 'nginx:2')));
      expect(decode('MODIFIED', pod('3', 'nginx:3'), options)).toEqual(expected(pod('3', 'nginx:3')));
    }
  });

  it('decodes right when the search for a pod spec\'s end misreads it: a status object nested in the spec', () => {
    // Not a PodSpec (it has no status key), but JSON: the search for the spec's end stops at the nested
    // status, before the image, so the bytes it takes for the spec stay the same while the spec changes.
    const pod = (rv: string, image: string): Json => {
      const p = apiPod({ rv, image });
      p.spec = { extra: { a: {}, status: { b: 1 } }, ...(p.spec as Json) };
      return p;
    };
    for (const dropManagedFields of [false, true]) {
      const options = { dropManagedFields, specMemo: bigMemo() };
      const expected = (p: Json): Json => (dropManagedFields ? withoutManagedFields(p) : p);
      for (const [type, rv, image] of [['ADDED', '1', 'nginx:1'], ['MODIFIED', '2', 'nginx:2'], ['MODIFIED', '3', 'nginx:3'], ['MODIFIED', '4', 'nginx:3']] as const) {
        expect(decode(type, pod(rv, image), options), `${type} ${rv}`).toEqual(expected(pod(rv, image)));
      }
    }
  });

  it('decodes as JSON.parse does, version after version, whatever a search for a pod spec\'s end or metadata\'s end misreads', () => {
    const meta = (rv: string, extra = ''): string =>
      `{"name":"web-1","namespace":"team-a","uid":"u","resourceVersion":"${rv}","managedFields":[{"manager":"m"}]${extra}}`;
    const start = (type: string): string => `{"type":"${type}","object":{"kind":"Pod","apiVersion":"v1","metadata":`;
    const cases: Record<string, string[]> = {
      // A member of the watch event after its object, holding a status: the search runs past the object's end.
      'an event member after the object': ['1', '2', '3'].map((rv, i) =>
        `${start(i === 0 ? 'ADDED' : 'MODIFIED')}${meta(rv)},"spec":{"containers":[{"name":"c","image":"nginx"}]}},"x":{"y":{},"status":{"phase":"P${rv}"}}}`),
      // Line 1's spec range runs one brace past the object; line 2's metadata has a spec member after managedFields.
      'two misreads in a row': [
        `${start('ADDED')}${meta('1')},"spec":{"z":{}}},"status":{"phase":"Running"}}`,
        `${start('MODIFIED')}${meta('2', ',"x":{"a":[]},"spec":{"z":{}}')},"status":{"phase":"Running"}}}`,
      ],
      // A status object in an ephemeral volume's claim template (its managedFields' fieldsV1): the range ends early.
      'a status object nested in the spec': ['1', '2', '3', '4'].map((rv, i) =>
        `${start(i === 0 ? 'ADDED' : 'MODIFIED')}${meta(rv)},"spec":{"volumes":[{"name":"v","ephemeral":{"volumeClaimTemplate":{"metadata":{"managedFields":[{"fieldsV1":{"f:a":{},"status":{"x":1}}}]},"spec":{}}}}],"c":"${i < 2 ? 'a' : 'b'}"},"status":{"phase":"R"}}}`),
      // A second spec key spelled with an escape: JSON.parse keeps it, a search for ,"spec": does not see it.
      'a second spec key spelled with an escape': ['one', 'two', 'two'].map((c, i) =>
        `${start(i === 0 ? 'ADDED' : 'MODIFIED')}${meta(String(i + 1))},"spec":{"a":1},"status":{"phase":"R"},"sp\\u0065c":{"c":"${c}"}}}`),
      // The null that stood in for a cut spec is no proof the cut was the object's spec: a real one can be null.
      'a second spec key, null': ['1', '2'].map((rv, i) => `${start(i === 0 ? 'ADDED' : 'MODIFIED')}${meta(rv)},"spec":{"a":1},"spec":null}}`),
      'a spec member in metadata, the object\'s spec null': ['1', '2'].map((rv, i) =>
        `${start(i === 0 ? 'ADDED' : 'MODIFIED')}${meta(rv, ',"o":{"l":[2]},"spec":{"z":1},"t":3')},"spec":null}}`),
      'whitespace before a value holding a spec': ['1', '2'].map((rv, i) =>
        `${start(i === 0 ? 'ADDED' : 'MODIFIED')}${meta(rv)},"x": {"a":1,"spec":{"c":1},"b":2},"spec":null}}`),
      // Members where the API server writes none: managedFields' cut must take nothing else with it.
      'a status ending in an array before the spec': ['1', '2'].map((rv, i) =>
        `${start(i === 0 ? 'ADDED' : 'MODIFIED')}${meta(rv)},"status":{"conditions":[1]},"spec":{"a":1}}}`),
      'a status holding managedFields before the spec': ['1', '2'].map((rv, i) =>
        `${start(i === 0 ? 'ADDED' : 'MODIFIED')}${meta(rv)},"status":{"x":1,"managedFields":[1]},"spec":{"a":1}}}`),
      'a status holding managedFields before the spec, metadata without': ['1', '2'].map((rv, i) =>
        `${start(i === 0 ? 'ADDED' : 'MODIFIED')}{"name":"web-1","namespace":"team-a","uid":"u","resourceVersion":"${rv}"},"status":{"x":1,"managedFields":[1]},"spec":{"a":1}}}`),
      'a metadata member after managedFields': ['1', '2'].map((rv, i) =>
        `${start(i === 0 ? 'ADDED' : 'MODIFIED')}${meta(rv, ',"finalizers":["f"]')},"spec":{"a":1}}}`),
      'two managedFields keys': ['1', '2'].map((rv, i) =>
        `${start(i === 0 ? 'ADDED' : 'MODIFIED')}${meta(rv, ',"managedFields":[2]')},"spec":{"a":1}}}`),
      'managedFields spelled with an escape': ['1', '2'].map((rv, i) =>
        `${start(i === 0 ? 'ADDED' : 'MODIFIED')}{"name":"web-1","namespace":"team-a","uid":"u","resourceVersion":"${rv}","managed\\u0046ields":[1]},"spec":{"a":1}}}`),
      'a second metadata after the spec': ['1', '2'].map((rv, i) =>
        `${start(i === 0 ? 'ADDED' : 'MODIFIED')}${meta(rv)},"spec":{"a":1},"metadata":${meta(rv, ',"managedFields":[2]')}}}`),
      // A memo entry for an object without a spec must not give a later version a spec member.
      'a spec that goes away': [',"spec":{"a":1}', '', ''].map((spec, i) => `${start(i === 0 ? 'ADDED' : 'MODIFIED')}${meta(String(i + 1))}${spec}}}`),
    };
    for (const [name, lines] of Object.entries(cases)) {
      for (const dropManagedFields of [false, true]) {
        const options = { dropManagedFields, specMemo: bigMemo() };
        lines.forEach((line, i) => {
          const bytes = Buffer.from(line);
          const decoded = new ScannedWatchEvent(scanWatchHead(bytes, 0, bytes.length)!, bytes, i + 1, 'GET /api/v1/pods', options).decodeObject();
          const object = (JSON.parse(line) as { object: Json }).object;
          expect(decoded, `${name}, line ${i + 1}, dropManagedFields ${String(dropManagedFields)}`).toStrictEqual(dropManagedFields ? withoutManagedFields(object) : object);
        });
      }
    }
  });

  it('compares a remembered spec exactly: a parsed __proto__ member is a member, -0 is not 0', () => {
    const line = (rv: string, spec: string): Buffer =>
      Buffer.from(`{"type":"MODIFIED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"n","resourceVersion":"${rv}"},"spec":${spec}}}`);
    const options = { specMemo: new Map<string, DecodedSpec>() };
    const specs = ['{"a":1}', '{"__proto__":{}}', '{"c":{"b":2}}', '{"c":{"__proto__":{}}}', '{"r":-0}', '{"r":0}'];
    specs.forEach((spec, i) => {
      const bytes = line(String(i + 1), spec);
      const decoded = new ScannedWatchEvent(scanWatchHead(bytes, 0, bytes.length)!, bytes, i + 1, 'GET /api/v1/pods', options).decodeObject();
      expect(decoded.spec, spec).toStrictEqual(JSON.parse(spec));
    });
  });

  it('reports a spec nested too deeply to compare as a line that does not decode, not as a stack overflow', () => {
    const depth = 20_000;
    const options = { specMemo: new Map<string, DecodedSpec>() };
    const line = (rv: string): Buffer => Buffer.from(
      `{"type":"MODIFIED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"n","resourceVersion":"${rv}"},"spec":{"a":${'['.repeat(depth)}${']'.repeat(depth)}}}}`);
    const event = (rv: string): ScannedWatchEvent => {
      const bytes = line(rv);
      return new ScannedWatchEvent(scanWatchHead(bytes, 0, bytes.length)!, bytes, Number(rv), 'GET /api/v1/pods', options);
    };
    event('1').decodeObject(); // remembered without a digest: the next version is compared
    expect(() => event('2').decodeObject()).toThrow(expect.objectContaining({ code: 'PODCONFIG_WATCH_DECODE', message: 'watch GET /api/v1/pods: line 2 nests too deeply to compare its spec' }) as Error);
  });

  it('falls back to the whole line when the cut one does not parse, and reports the line as usual', () => {
    const bytes = Buffer.from(JSON.stringify({ type: 'MODIFIED', object: apiPod() }).replace('"phase":"Running"', '"phase":Running'));
    const head = scanWatchHead(bytes, 0, bytes.length)!;
    const event = new ScannedWatchEvent(head, bytes, 9, 'GET /api/v1/pods', { dropManagedFields: true, specMemo: bigMemo() });
    expect(() => event.decodeObject()).toThrow(/^watch GET \/api\/v1\/pods: line 9 is not valid JSON/);
  });
});
