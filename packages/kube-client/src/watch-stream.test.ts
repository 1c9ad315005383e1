import { PodConfigError } from '@podconfig/core';
import { describe, expect, it } from 'vitest';
import { MAX_WATCH_LINE_BYTES, WatchStream } from './watch-stream.js';

interface Source {
  readonly chunks: AsyncIterator<Uint8Array>;
  /** How many chunks the stream has pulled so far. */
  pulled(): number;
  /** How many times the stream released the body. */
  released(): number;
  release(): void;
}

/** A body made of exactly these chunks (then `failAfter`, if given), counting pulls and releases. */
function source(chunks: readonly Uint8Array[], failAfter?: Error): Source {
  let pulled = 0;
  let released = 0;
  const iterator: AsyncIterator<Uint8Array> = {
    next: () => {
      const chunk = chunks[pulled];
      pulled++;
      if (chunk !== undefined) return Promise.resolve({ done: false, value: chunk });
      if (failAfter !== undefined) return Promise.reject(failAfter);
      return Promise.resolve({ done: true, value: undefined });
    },
  };
  return { chunks: iterator, pulled: () => pulled, released: () => released, release: () => void released++ };
}

function stream(s: Source, signal = new AbortController().signal): WatchStream {
  return new WatchStream({
    chunks: s.chunks,
    release: () => s.release(),
    readError: (err) => new PodConfigError('PODCONFIG_SOURCE_UNAVAILABLE', 'read failed', { cause: err, retryable: true }),
    describe: 'GET /api/v1/pods',
    signal,
  });
}

async function collect(iterable: AsyncIterable<unknown>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

const event = (i: number, extra = ''): Record<string, unknown> => ({
  type: 'ADDED',
  object: { metadata: { name: `pod-${i}`, annotations: { note: `ünïcødé ${extra}` } } },
});
const ndjson = (events: readonly unknown[]): Buffer => Buffer.from(events.map((e) => `${JSON.stringify(e)}\n`).join(''));

describe(WatchStream.name, () => {
  describe('next()', () => {
    it('decodes events split across chunks at every byte boundary, multi-byte characters included', async () => {
      const events = [event(1), event(2, 'x'.repeat(50)), event(3)];
      const bytes = ndjson(events);
      for (let cut = 1; cut < bytes.length; cut++) {
        const s = source([bytes.subarray(0, cut), bytes.subarray(cut)]);
        expect(await collect(stream(s))).toEqual(events);
      }
    });

    it('decodes a stream that arrives one byte per chunk', async () => {
      const events = [event(1), event(2)];
      const bytes = ndjson(events);
      const chunks = [...bytes].map((b) => Uint8Array.of(b));
      expect(await collect(stream(source(chunks)))).toEqual(events);
    });

    it('yields many events from one chunk, one per call', async () => {
      const events = Array.from({ length: 1000 }, (_, i) => event(i));
      const s = source([ndjson(events)]);
      expect(await collect(stream(s))).toEqual(events);
    });

    it('pulls the next chunk only when the consumer asks for an event the current chunk does not hold', async () => {
      const s = source([ndjson([event(1), event(2)]), ndjson([event(3)]), ndjson([event(4)])]);
      const w = stream(s);
      await w.next();
      expect(s.pulled()).toBe(1);
      await w.next();
      expect(s.pulled()).toBe(1);
      await w.next();
      expect(s.pulled()).toBe(2);
      await w.return();
      expect(s.pulled()).toBe(2);
    });

    it('skips blank lines and tolerates CRLF', async () => {
      const s = source([Buffer.from(`\n${JSON.stringify(event(1))}\r\n\r\n  \n${JSON.stringify(event(2))}\n`)]);
      expect(await collect(stream(s))).toEqual([event(1), event(2)]);
    });

    it('takes only JSON whitespace for blank: a line of other white space is not JSON', async () => {
      for (const blank of ['\u00a0', '\ufeff', '\u3000']) {
        const s = source([Buffer.from(`${JSON.stringify(event(1))}\n${blank}\n${JSON.stringify(event(2))}\n`)]);
        const w = stream(s);
        expect((await w.next()).value).toEqual(event(1));
        const err = await w.next().then(() => undefined, (e: unknown) => e);
        expect(PodConfigError.is(err, 'PODCONFIG_WATCH_DECODE'), JSON.stringify(blank)).toBe(true);
      }
    });

    it('decodes a last line without a trailing newline when the stream ends', async () => {
      const s = source([Buffer.from(`${JSON.stringify(event(1))}\n${JSON.stringify(event(2))}`)]);
      expect(await collect(stream(s))).toEqual([event(1), event(2)]);
    });

    it('ends without an error at a last line cut off mid-event (unexpected EOF), reporting its number and size, head-scanned or not', async () => {
      // Cut after a member that ends in `}`: up to there it looks like a whole line in the API server's layout.
      const cut = '{"type":"MODIFIED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","namespace":"ns","resourceVersion":"7","labels":{"x":"y"}';
      for (const scanHeads of [false, true]) {
        const eofs: { line: number; bytes: number }[] = [];
        const s = source([Buffer.from(`${JSON.stringify(event(1))}\n${cut.slice(0, 40)}`), Buffer.from(cut.slice(40))]);
        const w = new WatchStream({
          chunks: s.chunks,
          release: () => s.release(),
          readError: (err) => err,
          describe: 'GET /api/v1/pods',
          signal: new AbortController().signal,
          scanHeads,
          onUnexpectedEof: (details) => void eofs.push(details),
        });
        expect(await collect(w)).toEqual([event(1)]);
        expect(eofs).toEqual([{ line: 2, bytes: cut.length }]);
        expect(s.released()).toBe(0);
      }
    });

    it('bounds the initial events before the first bookmark by initialEventsMaxBytes, as a list\'s body, and nothing after it', async () => {
      const bookmark = { type: 'BOOKMARK', object: { metadata: { resourceVersion: '9', annotations: { 'k8s.io/initial-events-end': 'true' } } } };
      const lines = (events: readonly unknown[]): number => ndjson(events).length - events.length; // newlines do not count
      const initial = [event(1), event(2), event(3)];
      const limit = lines([...initial, bookmark]); // the bookmark's own line counts too
      for (const scanHeads of [false, true]) {
        const open = (events: readonly unknown[], max: number): WatchStream => {
          const s = source([ndjson(events)]);
          return new WatchStream({
            chunks: s.chunks, release: () => s.release(), readError: (err) => err, describe: 'GET /api/v1/pods',
            signal: new AbortController().signal, scanHeads, initialEventsMaxBytes: max,
          });
        };
        // Exactly the limit with the bookmark, then as much again after it: all read.
        expect(await collect(open([...initial, bookmark, ...initial], limit))).toHaveLength(7);
        const over = open([...initial, bookmark], limit - 1);
        await expect(collect(over)).rejects.toThrow(new PodConfigError('PODCONFIG_BODY_TOO_LARGE',
          `watch GET /api/v1/pods: the initial events are larger than the limit of ${limit - 1} bytes (a list's body limit) before the initial-events-end bookmark`));
      }
    });

    it('throws PODCONFIG_WATCH_DECODE for a malformed last line (not cut off: no JSON value starts so), as mid-stream', async () => {
      for (const last of ['not json at all', `${JSON.stringify(event(2))}}`, '{"type":"ADDED","object":{]}']) {
        const s = source([Buffer.from(`${JSON.stringify(event(1))}\n${last}`)]);
        const eofs: unknown[] = [];
        const w = new WatchStream({
          chunks: s.chunks, release: () => s.release(), readError: (err) => err, describe: 'GET /api/v1/pods',
          signal: new AbortController().signal, onUnexpectedEof: (details) => void eofs.push(details),
        });
        expect((await w.next()).value).toEqual(event(1));
        const err = await w.next().then(() => undefined, (e: unknown) => e);
        expect([last, PodConfigError.is(err, 'PODCONFIG_WATCH_DECODE') && (err as Error).message]).toEqual([last, `watch GET /api/v1/pods: line 2 is not valid JSON (${Buffer.byteLength(last)} bytes)`]);
        expect(eofs).toEqual([]);
      }
    });

    it('throws PODCONFIG_WATCH_DECODE for a line that is not JSON, without quoting it, and releases the body', async () => {
      const s = source([Buffer.from(`${JSON.stringify(event(1))}\n{"type":"ADDED","object":{"secret":"hunter2"\n`)]);
      const w = stream(s);
      expect((await w.next()).value).toEqual(event(1));
      const err = await w.next().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(PodConfigError.is(err, 'PODCONFIG_WATCH_DECODE')).toBe(true);
      expect((err as Error).message).toBe('watch GET /api/v1/pods: line 2 is not valid JSON (44 bytes)');
      expect((err as Error).message).not.toContain('hunter2');
      expect(s.released()).toBe(1);
      expect(await w.next()).toEqual({ done: true, value: undefined });
    });

    it(`throws PODCONFIG_WATCH_DECODE for a line longer than ${MAX_WATCH_LINE_BYTES} bytes without reading on, and releases the body`, async () => {
      // The start of a valid event, then a string that never ends: without the cap the stream would buffer all of it
      // and, at the end of the body, take it for an unexpected EOF. One 1 MiB chunk, repeated, keeps memory small.
      const head = Buffer.from('{"type":"ADDED","object":{"x":"');
      const mib = Buffer.alloc(1024 * 1024, 'x');
      const over = Math.floor((MAX_WATCH_LINE_BYTES - head.length) / mib.length) + 1; // the chunk that crosses the cap
      const s = source([head, ...Array.from({ length: over + 8 }, () => mib)]);
      const err = await collect(stream(s)).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(PodConfigError.is(err, 'PODCONFIG_WATCH_DECODE')).toBe(true);
      expect((err as Error).message).toBe(`watch GET /api/v1/pods: line 1 is longer than ${MAX_WATCH_LINE_BYTES} bytes`);
      expect(s.pulled()).toBe(1 + over);
      expect(s.released()).toBe(1);
    });

    it('throws PODCONFIG_WATCH_DECODE for JSON that is not an event', async () => {
      for (const line of ['42', '"ADDED"', 'null', '{"object":{}}', '{"type":1}']) {
        const err = await collect(stream(source([Buffer.from(`${line}\n`)]))).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(PodConfigError.is(err, 'PODCONFIG_WATCH_DECODE'), line).toBe(true);
      }
    });

    it('throws the read error, mapped, when the connection breaks mid-stream', async () => {
      const broken = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
      const w = stream(source([ndjson([event(1)]), Buffer.from('{"type":"ADD')], broken));
      expect((await w.next()).value).toEqual(event(1));
      const err = await w.next().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(PodConfigError.is(err, 'PODCONFIG_SOURCE_UNAVAILABLE')).toBe(true);
      expect((err as Error).cause).toBe(broken);
    });

    it('ends without an error when the read fails because the signal aborted', async () => {
      const controller = new AbortController();
      controller.abort();
      const w = stream(source([ndjson([event(1)])], new Error('aborted')), controller.signal);
      expect(await collect(w)).toEqual([event(1)]);
    });

    it('releases the body once when the consumer stops early, even before the first event', async () => {
      const s = source([ndjson([event(1), event(2)])]);
      const early = stream(s);
      await early.return();
      await early.return();
      expect(s.released()).toBe(1);
      for await (const _ of stream(s)) break;
      expect(s.released()).toBe(2);
    });

    it('does not release a body that ended by itself', async () => {
      const s = source([ndjson([event(1)])]);
      const w = stream(s);
      expect(await collect(w)).toHaveLength(1);
      await w.return();
      expect(s.released()).toBe(0);
    });
  });

  describe('nextBuffered()', () => {
    it('hands out the events of the chunk already read without reading, then undefined until next() reads on', async () => {
      const events = [event(1), event(2), event(3), event(4)];
      const bytes = ndjson(events);
      const firstChunkEnd = bytes.indexOf('\n', bytes.indexOf('\n', bytes.indexOf('\n') + 1) + 1) + 5; // 3 lines and a piece
      const s = source([bytes.subarray(0, firstChunkEnd), bytes.subarray(firstChunkEnd)]);
      const w = stream(s);
      expect(w.nextBuffered()).toBeUndefined();
      expect(s.pulled()).toBe(0);
      expect(await w.next()).toEqual({ done: false, value: events[0] });
      expect(w.nextBuffered()).toEqual({ done: false, value: events[1] });
      expect(w.nextBuffered()).toEqual({ done: false, value: events[2] });
      expect(w.nextBuffered()).toBeUndefined();
      expect(s.pulled()).toBe(1);
      expect(await w.next()).toEqual({ done: false, value: events[3] });
      expect(w.nextBuffered()).toBeUndefined();
      expect(await w.next()).toEqual({ done: true, value: undefined });
      expect(w.nextBuffered()).toEqual({ done: true, value: undefined });
    });

    it('throws what next() would reject with, at once, and releases the body', async () => {
      const s = source([Buffer.from(`${JSON.stringify(event(1))}\n{"type": nope}\n`)]);
      const w = stream(s);
      await w.next();
      let thrown: unknown;
      try {
        w.nextBuffered();
      } catch (err: unknown) {
        thrown = err;
      }
      expect(PodConfigError.is(thrown) && thrown.code).toBe('PODCONFIG_WATCH_DECODE');
      expect((thrown as Error).message).toMatch(/^watch GET \/api\/v1\/pods: line 2 is not valid JSON \(\d+ bytes\)$/);
      expect(s.released()).toBe(1);
    });
  });
});
