/** The budget scheduler on a fake clock: who goes first when the budget is short, and how edits yield. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createCallBudget, type BudgetRule, type CallPriority } from '../../../src/adapters/shared/call-budget.js';
import { createLocalCoordination } from '../../../src/core/coordination/local-coordination.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function budgetWith(rule: BudgetRule, editIntervalMs = 100) {
  const budget = createCallBudget({ ruleFor: () => rule, editIntervalMs });
  const order: string[] = [];
  const call = (name: string, priority: CallPriority, coalesceKey?: string) =>
    budget.schedule({
      budget: 'b',
      priority,
      coalesceKey,
      call: async () => {
        order.push(name);
        return name;
      },
    });
  return { budget, order, call };
}

describe('call budget', () => {
  it('gives a short budget to the sign of life first, then first text, then final text, then edits', async () => {
    const { order, call } = budgetWith({ kind: 'bucket', capacity: 1, perSecond: 1 });
    void call('warm-up', 'first');
    await vi.advanceTimersByTimeAsync(0);
    // The bucket is empty now: these four wait and go out one a second, by priority, not by arrival.
    void call('edit', 'edit', 'm1');
    void call('final', 'final');
    void call('first', 'first');
    void call('ack', 'ack');
    await vi.advanceTimersByTimeAsync(5_000);
    expect(order).toEqual(['warm-up', 'ack', 'first', 'final', 'edit']);
  });

  it('keeps only the newest waiting edit of a message, and settles every caller with it', async () => {
    const { order, call } = budgetWith({ kind: 'bucket', capacity: 1, perSecond: 1 });
    void call('blocker', 'first');
    const older = call('edit 1', 'edit', 'm1');
    const newer = call('edit 2', 'edit', 'm1');
    await vi.advanceTimersByTimeAsync(3_000);
    expect(order).toEqual(['blocker', 'edit 2']);
    await expect(older).resolves.toBe('edit 2');
    await expect(newer).resolves.toBe('edit 2');
  });

  it('folds a waiting edit into the final call of the same message, at the final priority', async () => {
    const { order, call } = budgetWith({ kind: 'bucket', capacity: 1, perSecond: 1 });
    void call('blocker', 'first');
    void call('other edit', 'edit', 'm2');
    void call('edit', 'edit', 'm1');
    void call('final', 'final', 'm1');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(order).toEqual(['blocker', 'final']);
  });

  it('leaves a reserve of the budget to first and final text: edits never take the last of it', async () => {
    const { order, call } = budgetWith({ kind: 'window', limit: 5, windowMs: 60_000 });
    for (let index = 0; index < 8; index++) void call(`edit ${index}`, 'edit', `m${index}`);
    await vi.advanceTimersByTimeAsync(0);
    expect(order).toEqual(['edit 0', 'edit 1', 'edit 2', 'edit 3']);
    void call('first', 'first');
    await vi.advanceTimersByTimeAsync(0);
    expect(order.at(-1)).toBe('first');
    // The window is spent: nothing more for a minute.
    void call('final', 'final');
    await vi.advanceTimersByTimeAsync(59_000);
    expect(order).not.toContain('final');
    await vi.advanceTimersByTimeAsync(1_001);
    expect(order).toContain('final');
  });

  it('spaces the edits of one message by the edit interval, stretched as more replies stream on the budget', () => {
    const { budget } = budgetWith({ kind: 'window', limit: 60, windowMs: 60_000 }, 500);
    const close = budget.openStream('b');
    expect(budget.editSpacingMs('b')).toBe(1_000);
    const others = Array.from({ length: 9 }, () => budget.openStream('b'));
    expect(budget.editSpacingMs('b')).toBe(10_000);
    for (const closeOther of others) closeOther();
    close();
    expect(budget.editSpacingMs('b')).toBe(500);
  });

  it('waits the edit spacing between two edits of the same message', async () => {
    const { order, call } = budgetWith({ kind: 'window', limit: 100, windowMs: 60_000 }, 1_000);
    void call('edit 1', 'edit', 'm1');
    await vi.advanceTimersByTimeAsync(0);
    void call('edit 2', 'edit', 'm1');
    void call('other message', 'edit', 'm2');
    await vi.advanceTimersByTimeAsync(500);
    expect(order).toEqual(['edit 1', 'other message']);
    await vi.advanceTimersByTimeAsync(500);
    expect(order).toEqual(['edit 1', 'other message', 'edit 2']);
  });

  it('sends nothing on a budget paused after a 429 until Retry-After has passed', async () => {
    const { budget, order, call } = budgetWith({ kind: 'bucket', capacity: 4, perSecond: 1 });
    budget.pause('b', 2_000);
    void call('first', 'first');
    await vi.advanceTimersByTimeAsync(1_999);
    expect(order).toEqual([]);
    await vi.advanceTimersByTimeAsync(1_100);
    expect(order).toEqual(['first']);
  });

  it('rejects waiting calls when stopped', async () => {
    const { budget, call } = budgetWith({ kind: 'bucket', capacity: 1, perSecond: 1 });
    void call('blocker', 'first');
    const waiting = call('late', 'final');
    budget.stop();
    await expect(waiting).rejects.toThrow(/stopped/);
  });
});

describe('call budget shared by replicas', () => {
  it('lets two replicas together send no more than one budget allows, and sends the rest when room comes back', async () => {
    const coordination = createLocalCoordination();
    const rule = { kind: 'bucket', capacity: 3, perSecond: 1 } as const;
    const replicas = [0, 1].map(() =>
      createCallBudget({ ruleFor: () => rule, editIntervalMs: 0, shared: (name, budgetRule) => coordination.takeToken(name, budgetRule) }),
    );
    let sent = 0;
    const calls = replicas.flatMap((budget) =>
      Array.from({ length: 3 }, () => budget.schedule({ budget: 'post:C1', priority: 'first', call: async () => void sent++ })),
    );
    await vi.advanceTimersByTimeAsync(0);
    // Each replica's own bucket holds 3 at once (6 in all); the shared one lets 2 of them go at once
    // (it keeps one call of the burst in reserve for the extra hop), the rest as it refills.
    expect(sent).toBe(2);
    await vi.advanceTimersByTimeAsync(1_050);
    expect(sent).toBe(3);
    await vi.advanceTimersByTimeAsync(10_000);
    await Promise.all(calls);
    expect(sent).toBe(6);
    for (const budget of replicas) budget.stop();
  });

  it('goes on with its own budget when the shared one cannot be asked', async () => {
    vi.useRealTimers();
    const budget = createCallBudget({
      ruleFor: () => ({ kind: 'bucket', capacity: 2, perSecond: 1 }),
      editIntervalMs: 0,
      shared: () => Promise.reject(new Error('Redis is down')),
    });
    const results = await Promise.all([1, 2].map((n) => budget.schedule({ budget: 'b', priority: 'final', call: async () => n })));
    expect(results).toEqual([1, 2]);
    budget.stop();
  });
});
