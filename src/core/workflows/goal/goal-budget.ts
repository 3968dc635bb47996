/**
 * A /goal's optional budget (`--budget 20m` of model time, `--budget 50k` tokens): read from the
 * command text, then checked before each step so that a spent goal stops between steps, never
 * half-way through one.
 */

export type GoalBudget = { kind: 'model-time'; ms: number } | { kind: 'tokens'; tokens: number };

/** What the goal has used so far: prompt + output tokens, time inside model calls. */
export interface GoalSpending {
  tokens: number;
  modelTimeMs: number;
}

export type GoalArguments = { ok: true; objective: string; budget?: GoalBudget } | { ok: false; message: string };

const BUDGET_FLAG = /(?:^|\s)--budget(?:\s+|=)(\S+)/i;
const TIME = /^(\d+(?:\.\d+)?)(s|sec|m|min|h)$/i;
const TOKENS = /^(\d+(?:\.\d+)?)(k|tok|tokens)?$/i;

export const BUDGET_USAGE = '`--budget 20m` (model time: s, m or h) or `--budget 50k` (tokens: a number, k = thousand)';

/** Splits `--budget <value>` (anywhere in the text) from the objective. */
export function parseGoalArguments(text: string): GoalArguments {
  const match = BUDGET_FLAG.exec(text);
  if (!match) return { ok: true, objective: text.trim() };
  const objective = `${text.slice(0, match.index)} ${text.slice(match.index + match[0].length)}`.replace(/\s+/g, ' ').trim();
  const budget = parseBudget(match[1] ?? '');
  if (!budget) return { ok: false, message: `"${match[1]}" is not a budget: use ${BUDGET_USAGE}.` };
  return { ok: true, objective, budget };
}

export function parseBudget(raw: string): GoalBudget | undefined {
  const time = TIME.exec(raw);
  if (time) {
    const unit = (time[2] ?? 's').toLowerCase();
    const ms = Number(time[1]) * (unit.startsWith('h') ? 3_600_000 : unit.startsWith('m') ? 60_000 : 1_000);
    return ms > 0 ? { kind: 'model-time', ms: Math.round(ms) } : undefined;
  }
  const tokens = TOKENS.exec(raw);
  if (tokens) {
    const count = Number(tokens[1]) * ((tokens[2] ?? '').toLowerCase() === 'k' ? 1_000 : 1);
    return count >= 1 ? { kind: 'tokens', tokens: Math.round(count) } : undefined;
  }
  return undefined;
}

export function describeBudget(budget: GoalBudget): string {
  if (budget.kind === 'tokens') return `${budget.tokens.toLocaleString('en-US')} tokens`;
  const minutes = budget.ms / 60_000;
  return minutes >= 1 ? `${Number(minutes.toFixed(1))} min of model time` : `${Math.round(budget.ms / 1000)} s of model time`;
}

/** Undefined while the budget lasts; else why the goal stops (said in the thread). */
export function budgetSpent(budget: GoalBudget | undefined, spent: GoalSpending): string | undefined {
  if (!budget) return undefined;
  if (budget.kind === 'tokens' && spent.tokens >= budget.tokens)
    return `the budget of ${describeBudget(budget)} is spent (${spent.tokens.toLocaleString('en-US')} used)`;
  if (budget.kind === 'model-time' && spent.modelTimeMs >= budget.ms)
    return `the budget of ${describeBudget(budget)} is spent (${Math.round(spent.modelTimeMs / 1000)} s used)`;
  return undefined;
}
