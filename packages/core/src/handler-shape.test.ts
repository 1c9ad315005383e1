import { describe, expect, it } from 'vitest';
import { handlerShapeProblem, isSyncHandler, strayHandlerMethods } from './handler-shape.js';

describe(strayHandlerMethods.name, () => {
  it('names the methods no handler has, own and inherited, with the handler method each may misspell', () => {
    class Base {
      async syncPod(): Promise<void> {}
      async killPod(): Promise<void> {}
      async Close(): Promise<void> {}
    }
    class Handler extends Base {
      readonly name = 'h';
      async listPod(): Promise<never[]> { return []; }
      writeFile(): void {}
    }
    expect(strayHandlerMethods(new Handler()).sort((a, b) => a.method.localeCompare(b.method))).toEqual([
      { method: 'Close', meant: 'close' },
      { method: 'listPod', meant: 'listPods' },
      { method: 'writeFile', meant: undefined },
    ]);
  });

  it('finds nothing stray on a handler with only handler methods and data', () => {
    const handler = { name: 'h', retries: 3, async syncPod() {}, async killPod() {}, async listPods() { return []; }, runtimeError: () => undefined };
    expect(strayHandlerMethods(handler)).toEqual([]);
  });
});

describe(handlerShapeProblem.name, () => {
  it('says everything that keeps a value from being a handler, and nothing for one', () => {
    expect(handlerShapeProblem(null)).toBe('it is null, not an object');
    expect(handlerShapeProblem('log')).toBe('it is string, not an object');
    expect(handlerShapeProblem({ name: '', syncPod: async () => {} })).toBe('its name is empty, it has no killPod()');
    expect(handlerShapeProblem({ killPod: async () => {} })).toBe('it has no name, it has no syncPod()');
    const handler = { name: 'h', syncPod: async () => {}, killPod: async () => {} };
    expect(handlerShapeProblem(handler)).toBeUndefined();
    expect(isSyncHandler(handler)).toBe(true);
    expect(isSyncHandler({ ...handler, name: '' })).toBe(false);
  });
});
