/**
 * Freezes a JSON value (plain objects and arrays, what a decoded pod is made of) and everything
 * below it, and returns it. A subtree that is already frozen is taken as frozen all the way down
 * and skipped: podconfig freezes bottom-up, so a pod that shares most of its subtrees with an
 * earlier, frozen version costs only its new parts. Objects that are not plain objects or arrays
 * (a Date, a Map, a class instance) are left alone.
 *
 * Why freezing and not copying: the merger's stored pods, its emitted pods and every handler's
 * `request.pod` are the same objects (spec §6.3 asks for deep copies so that a consumer cannot
 * change the merger's state; a frozen pod gives the same guarantee, enforced, without a copy per
 * change and per handler call). In ES modules (strict mode) a write to a frozen pod throws a
 * `TypeError` (sloppy-mode code ignores it silently). Precondition of the skip: an object frozen by
 * someone else (`Object.freeze`) is trusted to be frozen all the way down.
 */
export function deepFreeze<T>(value: T): T {
  freeze(value);
  return value;
}

function freeze(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) freeze(value[i]);
  } else {
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return;
    const source = value as Record<string, unknown>;
    for (const key in source) freeze(source[key]);
  }
  Object.freeze(value);
}
