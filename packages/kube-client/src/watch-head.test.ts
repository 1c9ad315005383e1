import { PodConfigError } from '@podconfig/core';
import { describe, expect, it } from 'vitest';
import { ScannedWatchEvent } from './scanned-watch-event.js';
import { scanWatchHead, type WatchHead } from './watch-head.js';

/** A pod as the API server writes it: TypeMeta first, ObjectMeta's strings before its first non-string. */
const apiPod = (metadata: Record<string, unknown> = {}): Record<string, unknown> => ({
  kind: 'Pod',
  apiVersion: 'v1',
  metadata: {
    name: 'web-1',
    generateName: 'web-',
    namespace: 'team-a',
    uid: '6c5d1f0e-1111-4222-8333-944455556666',
    resourceVersion: '1234',
    generation: 1,
    labels: { app: 'web', resourceVersion: 'not-this-one' },
    ...metadata,
  },
  spec: { nodeName: 'node-a', containers: [{ name: 'c', image: 'nginx' }] },
  status: { phase: 'Running' },
});

const line = (event: unknown): Buffer => Buffer.from(JSON.stringify(event));
const scan = (bytes: Buffer): WatchHead | undefined => scanWatchHead(bytes, 0, bytes.length);

describe(scanWatchHead.name, () => {
  it('reads type, kind, namespace, name and resourceVersion of a change event in the API server layout', () => {
    for (const type of ['ADDED', 'MODIFIED', 'DELETED'] as const) {
      expect(scan(line({ type, object: apiPod() }))).toEqual({ type, kind: 'Pod', namespace: 'team-a', name: 'web-1', resourceVersion: '1234' });
    }
  });

  it('reads only bytes [start, end) of a larger buffer', () => {
    const bytes = Buffer.concat([Buffer.from('garbage\n'), line({ type: 'MODIFIED', object: apiPod() }), Buffer.from('\n{"type":')]);
    expect(scanWatchHead(bytes, 8, bytes.length - 10)?.name).toBe('web-1');
    // The head must lie inside the range: a range ending inside metadata is not scanned past its end.
    expect(scanWatchHead(bytes, 8, 8 + 60)).toBeUndefined();
  });

  it('reads UTF-8 names as UTF-8', () => {
    expect(scan(line({ type: 'ADDED', object: apiPod({ name: 'wéb-1' }) }))?.name).toBe('wéb-1');
  });

  it.each([
    ['a BOOKMARK', { type: 'BOOKMARK', object: { kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: '9' } } }],
    ['an ERROR', { type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', metadata: {}, code: 410 } }],
    ['an unknown type', { type: 'SYNC', object: apiPod() }],
    ['a cluster-scoped object (no namespace before the first non-string)', {
      type: 'MODIFIED', object: { kind: 'Node', apiVersion: 'v1', metadata: { name: 'n', uid: 'u', resourceVersion: '3', labels: {} } },
    }],
    ['resourceVersion after a non-string member', {
      type: 'MODIFIED', object: { kind: 'Pod', apiVersion: 'v1', metadata: { name: 'n', namespace: 'ns', labels: {}, resourceVersion: '3' } },
    }],
    ['kind after metadata', { type: 'MODIFIED', object: { metadata: { name: 'n', namespace: 'ns', resourceVersion: '3' }, kind: 'Pod' } }],
    ['object before type', { object: apiPod(), type: 'MODIFIED' }],
    ['an escaped string in the head', { type: 'MODIFIED', object: apiPod({ generateName: 'we\\"b-' }) }],
    ['a non-string kind', { type: 'MODIFIED', object: { kind: 1, metadata: { name: 'n', namespace: 'ns', resourceVersion: '3' } } }],
  ])('leaves %s to be decoded whole', (_what, event) => {
    expect(scan(line(event))).toBeUndefined();
  });

  it('leaves whitespace-formatted, truncated and joined lines to be decoded whole (and refused)', () => {
    expect(scan(Buffer.from(JSON.stringify({ type: 'ADDED', object: apiPod() }, null, 1).replaceAll('\n', '')))).toBeUndefined();
    const bytes = line({ type: 'ADDED', object: apiPod() });
    for (let end = 0; end < bytes.length; end++) {
      const head = scanWatchHead(bytes, 0, end);
      // A prefix ending in `}` past the head reads the same head; any other prefix reads none.
      if (head === undefined) expect(bytes[end - 1] === 0x7d && end > 200).toBe(false);
      else expect(head.resourceVersion).toBe('1234');
    }
  });

  it('reads the first head of a line holding two events (a lost newline), which then neither decodes nor discards', () => {
    const joined = Buffer.concat([line({ type: 'MODIFIED', object: apiPod() }), line({ type: 'DELETED', object: apiPod({ name: 'other' }) })]);
    const head = scan(joined);
    expect(head?.name).toBe('web-1');
    const event = (): ScannedWatchEvent => new ScannedWatchEvent(head!, joined, 3, 'GET /api/v1/pods');
    expect(() => event().decodeObject()).toThrow(expect.objectContaining({ code: 'PODCONFIG_WATCH_DECODE' }));
    // Dropped undecoded (a later change of web-1 replaced it), the DELETED of `other` must not be lost unseen.
    expect(() => event().discard()).toThrow(expect.objectContaining({
      code: 'PODCONFIG_WATCH_DECODE', message: 'watch GET /api/v1/pods: line 3 holds more than one event (a lost newline?)',
    }));
  });

  it('does not mistake the next line of the buffer for a second event', () => {
    const first = line({ type: 'MODIFIED', object: apiPod() });
    const bytes = Buffer.concat([first, Buffer.from('\n'), line({ type: 'MODIFIED', object: apiPod({ name: 'next' }) })]);
    expect(scanWatchHead(bytes, 0, first.length)?.name).toBe('web-1');
  });
});

describe(ScannedWatchEvent.name, () => {
  const scanned = (event: unknown, bytes = line(event)): ScannedWatchEvent => {
    const head = scan(bytes);
    if (head === undefined) throw new Error('test line has no head');
    return new ScannedWatchEvent(head, bytes, 7, 'GET /api/v1/pods');
  };

  it('decodes its object once, on demand', () => {
    const event = scanned({ type: 'MODIFIED', object: apiPod() });
    expect(event.type).toBe('MODIFIED');
    const object = event.decodeObject();
    expect(object).toEqual(apiPod());
    expect(event.decodeObject()).toBe(object);
  });

  it('refuses a line that is not JSON after its head, naming the watch and line without quoting it', () => {
    const bytes = Buffer.from(`${JSON.stringify({ type: 'MODIFIED', object: apiPod() }).slice(0, -30)}"secret":"hunter2"}`);
    const event = scanned(undefined, bytes);
    const err = (() => {
      try {
        event.decodeObject();
      } catch (e: unknown) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(PodConfigError);
    expect(err).toMatchObject({ code: 'PODCONFIG_WATCH_DECODE', message: expect.stringMatching(/^watch GET \/api\/v1\/pods: line 7 is not valid JSON/) });
    expect(String((err as Error).message)).not.toContain('hunter2');
    // Asking again gives the same answer.
    expect(() => event.decodeObject()).toThrow((err as Error).message);
  });

  it('discards a line of one event quietly, and a decoded one without looking at it again', () => {
    expect(() => scanned({ type: 'MODIFIED', object: apiPod() }).discard()).not.toThrow();
    const event = scanned({ type: 'MODIFIED', object: apiPod() });
    const object = event.decodeObject();
    event.discard();
    expect(event.decodeObject()).toBe(object);
  });

  it('refuses a line whose object is not what its head said (duplicate keys: JSON.parse keeps the last)', () => {
    const json = JSON.stringify({ type: 'MODIFIED', object: apiPod() }).replace('"generation":1', '"generation":1,"name":"other"');
    const event = scanned(undefined, Buffer.from(json));
    expect(event.head.name).toBe('web-1');
    expect(() => event.decodeObject()).toThrow(/line 7 decodes to something other than its head/);
  });
});
