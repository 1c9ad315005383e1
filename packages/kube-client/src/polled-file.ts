import { stat } from 'node:fs/promises';
import { readBoundedFile, type Clock } from '@podconfig/core';

export interface PolledFileOptions {
  readonly path: string;
  /** Minimum time between two checks of the file's metadata. */
  readonly periodMs: number;
  readonly clock: Clock;
}

/**
 * A file whose content is re-read only when it changed, and checked at most once per period:
 * `stat()` (mtime, size, inode: an atomic rename or a projected-volume symlink swap changes
 * them), then a read when they differ from the last read. A FIFO is never re-read (its content is
 * what the config load read).
 */
export class PolledFile {
  readonly #o: PolledFileOptions;
  #checkedAt: number | undefined;
  #stamp: string | undefined;

  constructor(options: PolledFileOptions) {
    this.#o = options;
  }

  get path(): string {
    return this.#o.path;
  }

  /**
   * The new content when the file changed since the last read, else `undefined`. Skips the
   * check (returns `undefined`) within the period of the last one. The first check, and every
   * `force`d one, reads the file. Throws the `fs` error when the file cannot be read.
   */
  async changed(force: boolean): Promise<Buffer | undefined> {
    const now = this.#o.clock.monotonic(); // the period is elapsed time: a wall-clock step must not skip or stall checks
    if (!force && this.#checkedAt !== undefined && now - this.#checkedAt < this.#o.periodMs) return undefined;
    this.#checkedAt = now;
    const s = await stat(this.#o.path);
    // A FIFO (a token served by a process) was read once, when the config was loaded: reading it again would
    // wait for a writer that may never come, holding every request. It has no rotation to follow.
    if (s.isFIFO()) return undefined;
    const stamp = `${s.mtimeMs}:${s.size}:${s.ino}`;
    if (!force && stamp === this.#stamp) return undefined;
    const content = await readBoundedFile(this.#o.path);
    this.#stamp = stamp;
    return content;
  }
}
