import { Readable } from 'node:stream';
import { setImmediate as tick } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { ReadableChunks } from './readable-chunks.js';

const body = (): Readable => new Readable({ read() {} });

describe('ReadableChunks', () => {
  it('hands out each chunk the body emitted, the same buffer, in order, then ends', async () => {
    const stream = body();
    const sent = [Buffer.from('a\n'), Buffer.from('bc'), Buffer.from('d\n')];
    for (const chunk of sent) stream.push(chunk);
    stream.push(null);
    const chunks = new ReadableChunks(stream);
    const got: Buffer[] = [];
    for (let r = await chunks.next(); r.done !== true; r = await chunks.next()) got.push(r.value);
    expect(got).toHaveLength(3);
    got.forEach((chunk, i) => expect(chunk).toBe(sent[i]));
    expect(await chunks.next()).toEqual({ done: true, value: undefined });
  });

  it('does not read the body before the first next(), and pauses it while four chunks wait', async () => {
    let pulls = 0;
    const stream = new Readable({
      highWaterMark: 1,
      read() {
        pulls++;
        this.push(Buffer.from(`chunk ${pulls}\n`));
      },
    });
    const chunks = new ReadableChunks(stream);
    await tick();
    expect(pulls).toBe(0);
    const first = await chunks.next();
    expect(first.value?.toString()).toBe('chunk 1\n');
    for (let i = 0; i < 5; i++) await tick();
    expect(stream.isPaused()).toBe(true);
    const pulled = pulls;
    for (let i = 0; i < 5; i++) await tick();
    // Paused: the source is not asked for more while nobody takes the queued chunks.
    expect(pulls).toBe(pulled);
    expect(pulled).toBeLessThan(10);
    const next = await chunks.next();
    expect(next.value?.toString()).toBe('chunk 2\n');
    stream.destroy();
  });

  it("throws the body's error after the chunks that came before it", async () => {
    const stream = body();
    stream.push(Buffer.from('a\n'));
    const chunks = new ReadableChunks(stream);
    expect((await chunks.next()).value?.toString()).toBe('a\n');
    stream.destroy(new Error('socket hang up'));
    await expect(chunks.next()).rejects.toThrow('socket hang up');
  });

  it('throws ERR_STREAM_PREMATURE_CLOSE when the body closes without ending', async () => {
    const stream = body();
    const chunks = new ReadableChunks(stream);
    const next = chunks.next();
    stream.destroy();
    await expect(next).rejects.toMatchObject({ code: 'ERR_STREAM_PREMATURE_CLOSE' });
  });

  it('return() destroys the body', async () => {
    const stream = body();
    const chunks = new ReadableChunks(stream);
    expect(await chunks.return()).toEqual({ done: true, value: undefined });
    expect(stream.destroyed).toBe(true);
  });
});
