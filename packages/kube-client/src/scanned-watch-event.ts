import { PodConfigError } from '@podconfig/core';
import type { WatchHead } from './watch-head.js';

/**
 * A change event of a watch stream read only as far as its {@link WatchHead}: `decodeObject()` parses
 * the line when (and if) someone needs the object. A consumer that coalesces changes per object (the
 * cache's Reflector) never decodes an event superseded by a later one of the same object.
 *
 * Holds the line's bytes (a view of the chunk they came in) until it is decoded or dropped.
 */
export class ScannedWatchEvent {
  readonly type: WatchHead['type'];
  readonly head: WatchHead;
  #bytes: Buffer | undefined;
  readonly #line: number;
  readonly #describe: string;
  #object: Record<string, unknown> | undefined;
  #error: PodConfigError | undefined;

  constructor(head: WatchHead, bytes: Buffer, line: number, describe: string) {
    this.type = head.type;
    this.head = head;
    this.#bytes = bytes;
    this.#line = line;
    this.#describe = describe;
  }

  /**
   * The event's object, parsed once. Throws `PODCONFIG_WATCH_DECODE` (naming the watch and the line,
   * never quoting it) when the line is not JSON or its object is not what the head said.
   */
  decodeObject(): Record<string, unknown> {
    if (this.#object !== undefined) return this.#object;
    if (this.#error !== undefined) throw this.#error;
    const bytes = this.#bytes ?? Buffer.alloc(0);
    this.#bytes = undefined;
    let event: unknown;
    try {
      event = JSON.parse(bytes.toString('utf8'));
    } catch {
      throw this.#bad(`is not valid JSON (${bytes.length} bytes)`);
    }
    const object = isRecord(event) ? event.object : undefined;
    const metadata = isRecord(object) ? object.metadata : undefined;
    const head = this.head;
    if (
      !isRecord(event) ||
      event.type !== head.type ||
      !isRecord(object) ||
      object.kind !== head.kind ||
      !isRecord(metadata) ||
      metadata.name !== head.name ||
      metadata.namespace !== head.namespace ||
      metadata.resourceVersion !== head.resourceVersion
    ) {
      throw this.#bad('decodes to something other than its head (duplicate keys?)');
    }
    this.#object = object;
    return object;
  }

  #bad(problem: string): PodConfigError {
    return (this.#error = new PodConfigError('PODCONFIG_WATCH_DECODE', `watch ${this.#describe}: line ${this.#line} ${problem}`));
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
