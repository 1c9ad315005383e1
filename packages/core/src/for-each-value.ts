/**
 * Calls `each` with every value of `iterable` until it ends; resolves then, rejects with its error (or
 * `each`'s: the iterator is then returned, as `for await` does). What `for await (const v of iterable)
 * each(v)` does, with promise callbacks instead of a suspended async function, whose frame would keep
 * a value it is done with alive for as long as the loop runs (see `PullIterator`).
 */
export function forEachValue<T>(iterable: AsyncIterable<T>, each: (value: T) => void): Promise<void> {
  const iterator = iterable[Symbol.asyncIterator]();
  return new Promise<void>((resolve, reject) => {
    const onResult = (result: IteratorResult<T, unknown>): void => {
      if (result.done === true) {
        resolve();
        return;
      }
      let passed = false;
      try {
        each(result.value);
        passed = true;
      } finally {
        if (!passed) void iterator.return?.()?.catch(() => undefined);
      }
      pull();
    };
    // Each value's chain ends in `reject`: a throw in next() or each() rejects the whole loop. Chains are
    // not nested (a callback starts the next one and returns nothing), so they do not grow with the stream.
    const pull = (): void => {
      iterator.next().then(onResult).catch(reject);
    };
    Promise.resolve().then(pull).catch(reject);
  });
}
