import type { Bindings, ChildLoggerOptions, Logger } from 'pino';

/** A logger whose target is read at each use, and whose children follow it. */
function following(target: () => Logger): Logger {
  const proxy: Logger = new Proxy({} as Logger, {
    get(_, property) {
      if (property === 'child') {
        return (bindings: Bindings, options?: ChildLoggerOptions): Logger => {
          const make = (from: Logger): Logger => (options === undefined ? from.child(bindings) : from.child(bindings, options));
          // Made again from the parent's target when that changes, so a child taken early follows too.
          let parent = target();
          let made = make(parent);
          return following(() => {
            const current = target();
            if (parent !== current) {
              parent = current;
              made = make(current);
            }
            return made;
          });
        };
      }
      const current = target();
      const value: unknown = Reflect.get(current, property, current);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(current) : value;
    },
    set(_, property, value) {
      return Reflect.set(target(), property, value);
    },
    has(_, property) {
      return Reflect.has(target(), property);
    },
  });
  return proxy;
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
