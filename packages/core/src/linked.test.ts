import { getEventListeners, setMaxListeners } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { linked, withTimeout } from './linked.js';

describe('linked()', () => {
  it('aborts the child with the parent reason when the parent aborts', () => {
    const parent = new AbortController();
    const link = linked(parent.signal);
    expect(link.signal.aborted).toBe(false);
    const reason = new Error('shutdown');
    parent.abort(reason);
    expect(link.signal.aborted).toBe(true);
    expect(link.signal.reason).toBe(reason);
    link.dispose();
  });

  it('aborts only the child on abort()', () => {
    const parent = new AbortController();
    const link = linked(parent.signal);
    link.abort('tick');
    expect(link.signal.reason).toBe('tick');
    expect(parent.signal.aborted).toBe(false);
    link.dispose();
  });

  it('is aborted at once, with no listener added, when the parent already is', () => {
    const parent = AbortSignal.abort('gone');
    const link = linked(parent);
    expect(link.signal.aborted).toBe(true);
    expect(link.signal.reason).toBe('gone');
    expect(getEventListeners(parent, 'abort')).toHaveLength(0);
    link.dispose();
  });

  it('removes its listener from the parent on dispose(), so the parent no longer reaches the child', () => {
    const parent = new AbortController();
    setMaxListeners(200, parent.signal); // 100 children at once, on purpose: no leak warning in the test output
    const links = Array.from({ length: 100 }, () => linked(parent.signal));
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(100);
    for (const link of links) link.dispose();
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
    parent.abort();
    expect(links.some((l) => l.signal.aborted)).toBe(false);
  });
});

describe('withTimeout()', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('aborts with a timeout error after the given time', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const link = withTimeout(new AbortController().signal, 10_000);
    vi.advanceTimersByTime(9_999);
    expect(link.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(link.signal.aborted).toBe(true);
    expect((link.signal.reason as Error).message).toBe('timed out after 10000 ms');
    link.dispose();
  });

  it('aborts with the parent', () => {
    const parent = new AbortController();
    const link = withTimeout(parent.signal, 60_000);
    parent.abort('stop');
    expect(link.signal.reason).toBe('stop');
    link.dispose();
  });

  it('clears its timer and its parent listener on dispose()', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const parent = new AbortController();
    const link = withTimeout(parent.signal, 1000);
    expect(vi.getTimerCount()).toBe(1);
    link.dispose();
    expect(vi.getTimerCount()).toBe(0);
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
    vi.advanceTimersByTime(5000);
    parent.abort();
    expect(link.signal.aborted).toBe(false);
  });

  it('fires for real when the time passes', async () => {
    const link = withTimeout(new AbortController().signal, 1);
    await new Promise<void>((resolve) => link.signal.addEventListener('abort', () => resolve(), { once: true }));
    expect(link.signal.aborted).toBe(true);
    link.dispose();
  });
});
