import { PodConfigError } from '@podconfig/core';
import { describe, expect, it } from 'vitest';
import { MAX_EMPTY_PAGES, PaginationGuard } from './pagination-guard.js';

/** What `page()` threw, or undefined. */
function thrown(run: () => void): unknown {
  try {
    run();
    return undefined;
  } catch (err: unknown) {
    return err;
  }
}

describe(PaginationGuard.name, () => {
  describe('page()', () => {
    it('lets a chain of new tokens through, empty pages between full ones included, up to the last page', () => {
      const guard = new PaginationGuard('pods list');
      for (let i = 1; i <= 3 * MAX_EMPTY_PAGES; i++) guard.page(i % MAX_EMPTY_PAGES === 0 ? 1 : 0, `t${i}`);
      guard.page(0, undefined);
    });

    it('throws a retryable PODCONFIG_SOURCE_UNAVAILABLE naming a token that comes back, after any number of pages', () => {
      const guard = new PaginationGuard('pods list');
      guard.page(2, 'A');
      guard.page(2, 'B');
      const err = thrown(() => guard.page(2, 'A'));
      expect(PodConfigError.is(err, 'PODCONFIG_SOURCE_UNAVAILABLE') && err.retryable).toBe(true);
      expect((err as Error).message).toBe('pods list: page 3 came with continue token "A" a second time: the server\'s pagination loops');
    });

    it('cuts a long token in its message', () => {
      const guard = new PaginationGuard('pods list');
      const token = 'x'.repeat(200);
      guard.page(1, token);
      expect((thrown(() => guard.page(0, token)) as Error).message).toBe(
        `pods list: page 2 came with continue token "${'x'.repeat(80)}…" a second time: the server's pagination loops`,
      );
    });

    it(`throws after ${MAX_EMPTY_PAGES} pages in a row with no items and a continue token`, () => {
      const guard = new PaginationGuard('pods list');
      guard.page(1, 't0');
      for (let i = 1; i < MAX_EMPTY_PAGES; i++) guard.page(0, `t${i}`);
      const err = thrown(() => guard.page(0, `t${MAX_EMPTY_PAGES}`));
      expect(PodConfigError.is(err, 'PODCONFIG_SOURCE_UNAVAILABLE')).toBe(true);
      expect((err as Error).message).toBe(
        `pods list: ${MAX_EMPTY_PAGES} pages in a row (to page ${MAX_EMPTY_PAGES + 1}) came with no items and a continue token (the last: "t${MAX_EMPTY_PAGES}"): the server's pagination does not advance`,
      );
    });
  });
});
