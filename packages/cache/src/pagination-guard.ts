import { PodConfigError } from '@podconfig/core';

/**
 * Pages in a row with a continue token and no item after which a list is taken for a loop. The API server fills
 * every page up to `limit` before it hands out a token (its etcd store reads on, doubling its batch, while a
 * selector filters objects out; the watch cache pages a sorted snapshot): a page without items that promises
 * more never comes from it. Bytes bound the pages that carry items (the client's `maxResponseBytes`); this
 * bounds those that carry none, which cost a request each and next to no bytes (at 50 requests a second,
 * ~100-byte pages would reach a 512 MiB limit in about a day).
 */
export const MAX_EMPTY_PAGES = 100;

/** Continue tokens longer than this are cut in error messages (an API server's hold an object key, base64). */
const TOKEN_SHOWN = 80;

/**
 * The loop guard of one paginated list (client-go's pager has none): the chain of continue tokens must
 * advance. A token that comes back a second time, or {@link MAX_EMPTY_PAGES} pages in a row without items,
 * end the list with a retryable `PODCONFIG_SOURCE_UNAVAILABLE` naming the token. One per list.
 */
export class PaginationGuard {
  readonly #what: string;
  readonly #tokens = new Set<string>();
  #pages = 0;
  #emptyInARow = 0;

  /** `what` names the list in messages (`pods list`). */
  constructor(what: string) {
    this.#what = what;
  }

  /** Takes the next page (its item count and continue token, undefined on the last page); throws when the list loops. */
  page(items: number, token: string | undefined): void {
    this.#pages++;
    if (token === undefined) return;
    if (this.#tokens.has(token)) {
      throw this.#error(`page ${this.#pages} came with continue token ${shown(token)} a second time: the server's pagination loops`);
    }
    this.#tokens.add(token);
    this.#emptyInARow = items === 0 ? this.#emptyInARow + 1 : 0;
    if (this.#emptyInARow >= MAX_EMPTY_PAGES) {
      throw this.#error(
        `${MAX_EMPTY_PAGES} pages in a row (to page ${this.#pages}) came with no items and a continue token (the last: ${shown(token)}): the server's pagination does not advance`,
      );
    }
  }

  #error(message: string): PodConfigError {
    return new PodConfigError('PODCONFIG_SOURCE_UNAVAILABLE', `${this.#what}: ${message}`, { retryable: true });
  }
}

const shown = (token: string): string => JSON.stringify(token.length > TOKEN_SHOWN ? `${token.slice(0, TOKEN_SHOWN)}…` : token);
