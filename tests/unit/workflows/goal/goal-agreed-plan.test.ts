/** Issue 25 in the /goal loop: nothing runs before the plan is agreed, a budget stops between steps, a stored plan resumes. */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { budgetSpent, parseGoalArguments } from '../../../../src/core/workflows/goal/goal-budget.js';
import { parsePlan } from '../../../../src/core/workflows/goal/plan-parser.js';
import { runGoal, type GoalPlan, type RunGoalOptions, type StepResult } from '../../../../src/core/workflows/goal/run-goal.js';
import { goalRoster } from './goal-fixtures.js';

let base: string;
beforeEach(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'tsuka-goal-agreed-')));
  await fs.mkdir(path.join(base, 'workspace'));
});
afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

const PLAN = 'AGENT: @una — Design\nAGENT: @geordi — Build\nAGENT: @data — Document\nEND';
const ok = (output: string): StepResult => ({ output, stats: { outputTokens: 10, peakContextTokens: 100, totalTokens: 1_000, durationMs: 5 } });

function options(overrides: Partial<RunGoalOptions>): RunGoalOptions & { ran: string[] } {
  const ran: string[] = [];
  return {
    objective: 'Build a thing',
    roster: goalRoster(),
    planner: async () => PLAN,
    runStep: async (step) => {
      ran.push(step.agent);
      return ok(`${step.agent} done`);
    },
    onEvent: () => undefined,
    signal: new AbortController().signal,
    workspaceRoot: path.join(base, 'workspace'),
    stagingRoot: path.join(base, 'staging'),
    ran,
    ...overrides,
  };
}

describe('a /goal plan agreed before it runs', () => {
  it('runs no step while the plan waits, and none when it is cancelled', async () => {
    let release: (plan: GoalPlan | undefined) => void = () => undefined;
    const run = options({ approvePlan: () => new Promise((resolve) => (release = resolve)) });
    const outcome = runGoal(run);
    await new Promise((resolve) => setImmediate(resolve));
    expect(run.ran).toEqual([]);
    release(undefined);
    expect((await outcome).kind).toBe('cancelled');
    expect(run.ran).toEqual([]);
  });

  it('runs the plan the approval returns (an edited one)', async () => {
    const edited = parsePlan('AGENT: @data — Only document', goalRoster());
    const run = options({ approvePlan: async () => (edited.kind === 'plan' ? edited : undefined) });
    await runGoal(run);
    expect(run.ran).toEqual(['data']);
  });

  it('stops cleanly between steps once the budget is spent', async () => {
    let tokens = 0;
    const run = options({
      runStep: async (step) => {
        run.ran.push(step.agent);
        tokens += 1_000;
        return ok('done');
      },
      budgetSpent: () => budgetSpent({ kind: 'tokens', tokens: 1_500 }, { tokens, modelTimeMs: 0 }),
    });
    const outcome = await runGoal(run);
    expect(run.ran).toEqual(['una', 'geordi']);
    expect(outcome.kind).toBe('stopped');
    expect(outcome.kind !== 'trivial' && outcome.budgetSpent).toMatch(/budget of 1,500 tokens is spent/);
  });

  it('continues a stored plan from the first unfinished step, without asking the planner', async () => {
    const plan = parsePlan(PLAN, goalRoster());
    if (plan.kind !== 'plan') throw new Error('plan expected');
    const run = options({
      planner: async () => {
        throw new Error('the planner must not be asked again');
      },
      plan,
      finished: [{ step: plan.groups[0]!.steps[0]!, result: ok('design kept') }],
      runStep: async (step, context) => {
        run.ran.push(`${step.agent} after ${context.previous.map((done) => done.result.output).join(', ')}`);
        return ok(`${step.agent} done`);
      },
    });
    const outcome = await runGoal(run);
    expect(run.ran).toEqual(['geordi after design kept', 'data after design kept, geordi done']);
    expect(outcome.kind !== 'trivial' && outcome.steps.map((done) => done.step.agent)).toEqual(['una', 'geordi', 'data']);
  });
});

describe('--budget', () => {
  it('reads model time and tokens anywhere in the text, and refuses what is neither', () => {
    expect(parseGoalArguments('--budget 20m add a health check')).toEqual({
      ok: true,
      objective: 'add a health check',
      budget: { kind: 'model-time', ms: 1_200_000 },
    });
    expect(parseGoalArguments('add a check --budget 50k')).toEqual({ ok: true, objective: 'add a check', budget: { kind: 'tokens', tokens: 50_000 } });
    expect(parseGoalArguments('add a check --budget=90s')).toMatchObject({ budget: { kind: 'model-time', ms: 90_000 } });
    expect(parseGoalArguments('add a check')).toEqual({ ok: true, objective: 'add a check' });
    expect(parseGoalArguments('x --budget lots')).toMatchObject({ ok: false, message: expect.stringContaining('"lots" is not a budget') });
  });

  it('is spent at its limit, of either kind', () => {
    expect(budgetSpent({ kind: 'model-time', ms: 60_000 }, { tokens: 9e9, modelTimeMs: 59_999 })).toBeUndefined();
    expect(budgetSpent({ kind: 'model-time', ms: 60_000 }, { tokens: 0, modelTimeMs: 60_000 })).toMatch(/1 min of model time/);
    expect(budgetSpent(undefined, { tokens: 9e9, modelTimeMs: 9e9 })).toBeUndefined();
  });
});
