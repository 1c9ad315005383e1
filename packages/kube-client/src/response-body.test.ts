import { setImmediate as tick } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import { describe, expect, it } from 'vitest';
import { BODY_PAUSE_BYTES, BODY_RESUME_BYTES, CHUNK_OVERHEAD_BYTES, ResponseBody, type DispatchedResponse } from './response-body.js';

/** undici's side of one request: what the handler was told, and what the body asked of the connection. */
class FakeRequest implements Dispatcher.DispatchController {
  handler!: Dispatcher.DispatchHandler;
  options!: Dispatcher.DispatchOptions;
  aborted = false;
  paused = false;
  reason: Error | null = null;
  pauses = 0;
  resumes = 0;

  abort(reason: Error): void {
    this.aborted = true;
    this.reason = reason;
    this.handler.onResponseError?.(this, reason);
  }

  pause(): void {
    this.paused = true;
    this.pauses++;
  }

  resume(): void {
    this.paused = false;
    this.resumes++;
  }

  start(): void {
    this.handler.onRequestStart?.(this, {});
  }

  respond(statusCode = 200): void {
    this.handler.onResponseStart?.(this, statusCode, { 'content-type': 'application/json' }, 'OK');
  }

  data(chunk: Buffer): void {
    this.handler.onResponseData?.(this, chunk);
  }

  end(): void {
    this.handler.onResponseEnd?.(this, {});
  }
}

function fakeDispatcher(req: FakeRequest): Dispatcher {
  return {
    dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
      req.options = options;
      req.handler = handler;
      return true;
    },
  } as unknown as Dispatcher;
}

const options: Dispatcher.DispatchOptions = { origin: 'http://127.0.0.1:1', path: '/api/v1/pods?watch=true', method: 'GET' };
const signal = new AbortController().signal;

async function started(req: FakeRequest, s: AbortSignal = signal): Promise<DispatchedResponse> {
  const response = ResponseBody.dispatch(fakeDispatcher(req), options, s);
  req.start();
  req.respond();
  return response;
}

describe(ResponseBody.name, () => {
  it('resolves with the status and headers, hands out each chunk the parser produced, the same buffer, in order, then ends', async () => {
    const req = new FakeRequest();
    const res = await started(req);
    expect(res.statusCode).toBe(200);
    expect(res.headers).toEqual({ 'content-type': 'application/json' });
    const sent = [Buffer.from('a\n'), Buffer.from('bc'), Buffer.from('d\n')];
    for (const chunk of sent) req.data(chunk);
    req.end();
    const got: Buffer[] = [];
    for await (const chunk of res.body) got.push(chunk);
    expect(got).toHaveLength(3);
    got.forEach((chunk, i) => expect(chunk).toBe(sent[i]));
    expect(await res.body.next()).toEqual({ done: true, value: undefined });
  });

  it('pauses the connection once 256 KiB wait unread and resumes it only when 64 KiB or less are left', async () => {
    const req = new FakeRequest();
    const res = await started(req);
    const small = Buffer.alloc(1024, 'x');
    const counted = small.length + CHUNK_OVERHEAD_BYTES;
    let sent = 0;
    while (!req.paused) {
      req.data(small);
      sent++;
    }
    expect(sent * counted).toBeGreaterThanOrEqual(BODY_PAUSE_BYTES);
    expect((sent - 1) * counted).toBeLessThan(BODY_PAUSE_BYTES);
    expect(req.pauses).toBe(1);
    // Taking chunks one by one does not resume the connection after each: only at the low mark.
    let taken = 0;
    while (req.paused) {
      await res.body.next();
      taken++;
    }
    expect((sent - taken) * counted).toBeLessThanOrEqual(BODY_RESUME_BYTES);
    expect((sent - taken + 1) * counted).toBeGreaterThan(BODY_RESUME_BYTES);
    expect(req.resumes).toBe(1);
    // Below the high mark again, data flows without another pause.
    req.data(small);
    expect(req.pauses).toBe(1);
    res.body.destroy();
  });

  it("throws the transport's error after the chunks that came before it", async () => {
    const req = new FakeRequest();
    const res = await started(req);
    req.data(Buffer.from('a\n'));
    req.handler.onResponseError?.(req, new Error('socket hang up'));
    expect((await res.body.next()).value?.toString()).toBe('a\n');
    await expect(res.body.next()).rejects.toThrow('socket hang up');
  });

  it('rejects with the transport error that came before the headers', async () => {
    const req = new FakeRequest();
    const response = ResponseBody.dispatch(fakeDispatcher(req), options, signal);
    req.start();
    req.handler.onResponseError?.(req, Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }));
    await expect(response).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it("aborts the request when the signal aborts, and a waiting reader gets the signal's reason", async () => {
    const req = new FakeRequest();
    const controller = new AbortController();
    const res = await started(req, controller.signal);
    const next = res.body.next();
    controller.abort(new Error('shutting down'));
    await expect(next).rejects.toThrow('shutting down');
    expect(req.reason?.message).toBe('shutting down');
  });

  it('drops what was queued when the signal aborts: the reader gets the reason at once, not 256 KiB of old chunks', async () => {
    const req = new FakeRequest();
    const controller = new AbortController();
    const res = await started(req, controller.signal);
    for (let i = 0; i < 100; i++) req.data(Buffer.from(`{"line":${i}}\n`));
    controller.abort(new Error('shutting down'));
    await expect(res.body.next()).rejects.toThrow('shutting down');
  });

  it('aborts a request whose signal aborted before undici started it, as soon as it starts', async () => {
    const req = new FakeRequest();
    const controller = new AbortController();
    const response = ResponseBody.dispatch(fakeDispatcher(req), options, controller.signal);
    controller.abort(new Error('shutting down'));
    await tick();
    expect(req.aborted).toBe(false); // no controller yet: undici cannot abort a pending connect
    req.start();
    expect(req.reason?.message).toBe('shutting down');
    await expect(response).rejects.toThrow('shutting down');
  });

  it('does not send a request whose signal has already aborted', async () => {
    const req = new FakeRequest();
    await expect(ResponseBody.dispatch(fakeDispatcher(req), options, AbortSignal.abort(new Error('gone')))).rejects.toThrow('gone');
    expect(req.handler).toBeUndefined();
  });

  it('destroy(err) aborts the request and drops what was queued; the reader gets err; destroy() just ends the body', async () => {
    const req = new FakeRequest();
    const res = await started(req);
    req.data(Buffer.from('a\n'));
    res.body.destroy(new Error('deadline'));
    expect(req.reason?.message).toBe('deadline');
    await expect(res.body.next()).rejects.toThrow('deadline');

    const other = new FakeRequest();
    const res2 = await started(other);
    other.data(Buffer.from('a\n'));
    expect(await res2.body.return()).toEqual({ done: true, value: undefined });
    expect(other.aborted).toBe(true);
    expect(await res2.body.next()).toEqual({ done: true, value: undefined });
  });

  it('does not abort an ended response when destroyed, but destroy(err) still fails its reader (no silent truncation)', async () => {
    const req = new FakeRequest();
    const res = await started(req);
    req.data(Buffer.from('a\n'));
    req.end();
    res.body.destroy(new Error('too late'));
    expect(req.aborted).toBe(false);
    await expect(res.body.next()).rejects.toThrow('too late');
  });

  it('counts each chunk with an overhead, so that a flood of one-byte chunks pauses the connection after a few thousand', async () => {
    const req = new FakeRequest();
    const res = await started(req);
    let sent = 0;
    while (!req.paused) {
      req.data(Buffer.from('x'));
      sent++;
    }
    expect(sent).toBe(Math.ceil(BODY_PAUSE_BYTES / (1 + CHUNK_OVERHEAD_BYTES)));
    res.body.destroy();
  });

  it('hands out thousands of queued chunks in order while more arrive', async () => {
    const req = new FakeRequest();
    const res = await started(req);
    const chunks = Array.from({ length: 5000 }, (_, i) => Buffer.from(String(i)));
    chunks.slice(0, 3000).forEach((chunk) => req.data(chunk));
    const got: Buffer[] = [];
    for (let i = 0; i < 2000; i++) got.push((await res.body.next()).value as Buffer);
    chunks.slice(3000).forEach((chunk) => req.data(chunk));
    req.end();
    for await (const chunk of res.body) got.push(chunk);
    expect(got.map(String)).toEqual(chunks.map(String));
  });

  it('skips an informational response (103 Early Hints) and resolves with the final one', async () => {
    const req = new FakeRequest();
    const response = ResponseBody.dispatch(fakeDispatcher(req), options, signal);
    req.start();
    req.respond(103);
    req.respond(200);
    expect((await response).statusCode).toBe(200);
  });

  it('dump() reads a short body to its end, keeping the connection, and aborts a long one past 128 KiB', async () => {
    const req = new FakeRequest();
    const res = await started(req);
    req.data(Buffer.alloc(1000));
    req.end();
    await res.body.dump();
    expect(req.aborted).toBe(false);

    const long = new FakeRequest();
    const res2 = await started(long);
    const dumped = res2.body.dump();
    for (let i = 0; i < 200 && !long.aborted; i++) {
      long.data(Buffer.alloc(1024));
      await tick();
    }
    await dumped;
    expect(long.aborted).toBe(true);
  });
});
