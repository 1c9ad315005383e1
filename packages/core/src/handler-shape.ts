import { closestName } from './closest-name.js';
import type { SyncHandler } from './sync-handler.js';

/** The methods a handler may have: `SyncHandler`'s and the optional capabilities', which are found by name. */
export const HANDLER_METHODS = ['syncPod', 'killPod', 'start', 'close', 'listPods', 'runtimeError'] as const;

/** A method of a handler that no handler has, and the handler method it may misspell (`listPod` → `listPods`). */
export interface StrayHandlerMethod {
  readonly method: string;
  /** Undefined when no handler method is that close: a helper of the handler's own, most likely. */
  readonly meant: string | undefined;
}

/**
 * The function-valued properties of `value`, its own and its classes' (not Object's), that are none of
 * {@link HANDLER_METHODS}. The optional capabilities are found by name, so a misspelt one (`listPod()`, `Close()`)
 * would never be called, and nothing else would say so.
 */
export function strayHandlerMethods(value: object): StrayHandlerMethod[] {
  const known: readonly string[] = HANDLER_METHODS;
  const names = new Set<string>();
  for (let o: object | null = value; o !== null && o !== Object.prototype; o = Object.getPrototypeOf(o) as object | null) {
    for (const key of Object.getOwnPropertyNames(o)) {
      if (key === 'constructor' || known.includes(key)) continue;
      const d = Object.getOwnPropertyDescriptor(o, key);
      if (d !== undefined && typeof d.value === 'function') names.add(key);
    }
  }
  return [...names].map((method) => ({ method, meant: closestName(method, HANDLER_METHODS) }));
}

/** What keeps `value` from being a handler the reconciler can drive (`it has no killPod()`), or undefined: errors name it. */
export function handlerShapeProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return `it is ${value === null ? 'null' : typeof value}, not an object`;
  const h = value as Partial<Record<keyof SyncHandler, unknown>>;
  const missing = [
    ...(typeof h.name === 'string' && h.name !== '' ? [] : [h.name === '' ? 'its name is empty' : 'it has no name']),
    ...(typeof h.syncPod === 'function' ? [] : ['it has no syncPod()']),
    ...(typeof h.killPod === 'function' ? [] : ['it has no killPod()']),
  ];
  return missing.length === 0 ? undefined : missing.join(', ');
}

/** True for an object with a non-empty `name`, `syncPod()` and `killPod()`: what the reconciler drives. */
export function isSyncHandler(value: unknown): value is SyncHandler {
  return handlerShapeProblem(value) === undefined;
}
