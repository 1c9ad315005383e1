import type { Bindings, ChildLoggerOptions, Logger } from 'pino';

/**
 * A logger that logs through `derive(source())`, made again when `source()` changes, so that a child
 * taken before the change follows it. What is set on it (its `level`, `setBindings()`) is kept and set
 * again on the logger made after a change: pino keeps a child's own level and bindings apart from its
 * parent's.
 */
function following(source: () => Logger, derive: (parent: Logger) => Logger = (parent) => parent): Logger {
  let parent: Logger | undefined;
  let made: Logger | undefined;
  let level: string | undefined;
  const bindings: Bindings[] = [];
  const current = (): Logger => {
    const from = source();
    if (made === undefined || from !== parent) {
      parent = from;
      made = derive(from);
      if (level !== undefined) made.level = level;
      for (const b of bindings) made.setBindings(b);
    }
    return made;
  };
  return new Proxy({} as Logger, {
    get(_, property) {
      if (property === 'child') {
        return (childBindings: Bindings, options?: ChildLoggerOptions): Logger =>
          following(current, (from) => (options === undefined ? from.child(childBindings) : from.child(childBindings, options)));
      }
      if (property === 'setBindings') {
        return (more: Bindings): void => {
          bindings.push(more);
          current().setBindings(more);
        };
      }
      const target = current();
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
    set(_, property, value) {
      const done = Reflect.set(current(), property, value); // pino throws for an unknown level: nothing is kept then
      if (property === 'level') level = String(value);
      return done;
    },
    has(_, property) {
      return Reflect.has(current(), property);
    },
  });
}

/**
 * A handler factory's logger, before its handler's name is known: it logs through `initial`
 * (`component: sync.<spec>`), and after {@link DeferredLogger.settle} through the logger of the name
 * the handler runs under, children taken before included (pino fixes a child's bindings when it is
 * made, and a handler takes its child in its constructor).
 */
export class DeferredLogger {
  #current: Logger;
  readonly logger: Logger;

  constructor(initial: Logger) {
    this.#current = initial;
    this.logger = following(() => this.#current);
  }

  /** From now on, log through `next` (at the level set so far). */
  settle(next: Logger): void {
    next.level = this.#current.level;
    this.#current = next;
  }
}
