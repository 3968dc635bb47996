/**
 * The arithmetic of one budget of the call scheduler (`call-budget.ts`): how many calls its rule
 * allows now, spending one, and when room comes back. A rule is a token bucket (`capacity` at once,
 * refilled at `perSecond`) or a sliding window (`limit` per `windowMs`).
 */
import type { RateRule } from '../../core/coordination/coordination.js';

export interface BudgetState {
  rule: RateRule;
  tokens: number;
  at: number;
  spent: number[];
  /** Replies streaming on this budget (their edits are spaced further apart as there are more). */
  streams: number;
  /** First posts announced on this budget and not yet sent: intermediate calls leave them room. */
  expected: number;
  pausedUntil: number;
}

export function newBudgetState(rule: RateRule, time: number): BudgetState {
  return { rule, tokens: rule.kind === 'bucket' ? rule.capacity : 0, at: time, spent: [], streams: 0, expected: 0, pausedUntil: 0 };
}

/** Calls the budget allows now, its size, and when the next one will be allowed. */
export function roomOf(state: BudgetState, time: number): { available: number; capacity: number; nextAt: number } {
  const { rule } = state;
  if (time < state.pausedUntil) return { available: 0, capacity: rule.kind === 'bucket' ? rule.capacity : rule.limit, nextAt: state.pausedUntil };
  if (rule.kind === 'bucket') {
    state.tokens = Math.min(rule.capacity, state.tokens + ((time - state.at) / 1000) * rule.perSecond);
    state.at = time;
    return { available: Math.floor(state.tokens), capacity: rule.capacity, nextAt: time + ((1 - (state.tokens % 1)) / rule.perSecond) * 1000 };
  }
  state.spent = state.spent.filter((at) => at > time - rule.windowMs);
  return { available: rule.limit - state.spent.length, capacity: rule.limit, nextAt: (state.spent[0] ?? time) + rule.windowMs };
}

export function spendOn(state: BudgetState, time: number): void {
  if (state.rule.kind === 'bucket') state.tokens -= 1;
  else state.spent.push(time);
}

/** A call spent on the budget did not go after all (the shared budget said wait): its room comes back. */
export function refundOn(state: BudgetState): void {
  if (state.rule.kind === 'bucket') state.tokens = Math.min(state.rule.capacity, state.tokens + 1);
  else state.spent.pop();
}

/** The steady time between two calls the rule allows. */
export const periodMs = (rule: RateRule): number => (rule.kind === 'bucket' ? 1000 / rule.perSecond : rule.windowMs / rule.limit);

/** A 429 came: nothing goes out on the budget for `ms`, and a bucket starts empty after (the platform counted more than we did). */
export function pauseState(state: BudgetState, time: number, ms: number): void {
  state.pausedUntil = Math.max(state.pausedUntil, time + ms);
  if (state.rule.kind === 'bucket') {
    state.tokens = 0;
    state.at = state.pausedUntil;
  }
}
