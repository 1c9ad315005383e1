import { describe, expect, it } from 'vitest';
import { WarnBudget } from './warn-budget.js';

describe(WarnBudget.name, () => {
  it('lets perWindow warnings through per window, demotes the rest, and tells the next one let through how many were demoted', () => {
    let now = 0;
    const budget = new WarnBudget({ perWindow: 2, windowMs: 60_000, now: () => now });
    expect([budget.take(), budget.take(), budget.take(), budget.take()]).toEqual([0, 0, undefined, undefined]);
    now = 59_999;
    expect(budget.take()).toBeUndefined();
    now = 60_000; // a new window, counted from its first warning
    expect([budget.take(), budget.take(), budget.take()]).toEqual([3, 0, undefined]);
    now = 200_000;
    expect(budget.take()).toBe(1);
  });
});
