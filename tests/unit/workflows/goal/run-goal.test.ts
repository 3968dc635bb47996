import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AbortedError } from '../../../../src/core/errors.js';
import { writeFileBeneath } from '../../../../src/core/tools/atomic-write.js';
import type { PlanStep } from '../../../../src/core/workflows/goal/plan-parser.js';
import { runGoal, type GoalEvent, type RunGoalOptions, type StepResult, type StepRunContext } from '../../../../src/core/workflows/goal/run-goal.js';
import { goalRoster } from './goal-fixtures.js';

let base: string;
let workspaceRoot: string;
let stagingRoot: string;

beforeEach(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'tsuka-run-goal-')));
  workspaceRoot = path.join(base, 'workspace');
  stagingRoot = path.join(base, 'staging');
  await fs.mkdir(workspaceRoot);
  await fs.writeFile(path.join(workspaceRoot, 'shared.txt'), 'original\n');
});

afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = (): void => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

const PLAN = [
  'AGENT: @una — Write design.md',
  'PARALLEL:',
  'AGENT: @geordi — Build',
  'AGENT: @data — Document',
  'END PARALLEL',
  'AGENT: @pike — Review',
  'END',
].join('\n');

function options(overrides: Partial<RunGoalOptions> & Pick<RunGoalOptions, 'runStep'>): RunGoalOptions & { events: GoalEvent[] } {
  const events: GoalEvent[] = [];
  return {
    objective: 'Build a thing',
    roster: goalRoster(),
    planner: async () => PLAN,
    onEvent: (event) => {
      events.push(event);
    },
    signal: new AbortController().signal,
    workspaceRoot,
    stagingRoot,
    events,
    ...overrides,
  };
}

const ok = (output: string): StepResult => ({ output, stats: { outputTokens: 10, peakContextTokens: 100, totalTokens: 110, durationMs: 1000 } });

function eventLine(event: GoalEvent): string {
  switch (event.type) {
    case 'step-start':
    case 'step-end':
    case 'step-failed':
    case 'step-skipped':
    case 'rework':
    case 'review-failed':
      return `${event.type} ${event.step.agent}`;
    default:
      return event.type;
  }
}

describe('runGoal', () => {
  it('ends a trivial goal without running a step, and gives the planner the catalogue', async () => {
    const prompts: string[] = [];
    const run = options({
      planner: async (prompt) => {
        prompts.push(prompt.system);
        return 'NO TEAM NEEDED: 4';
      },
      runStep: async () => {
        throw new Error('must not run');
      },
    });
    expect(await runGoal(run)).toEqual({ kind: 'trivial', answer: '4' });
    expect(run.events).toEqual([]);
    expect(prompts[0]).toContain('@geordi — Geordi (developer)');
  });

  it('runs sequential steps in the workspace and parallel steps concurrently in staging copies, then merges', async () => {
    const started = { geordi: deferred(), data: deferred() };
    const seen: Record<string, { root: string; cwd?: string; design: string; previous: string[] }> = {};
    const runStep = async (step: PlanStep, context: StepRunContext): Promise<StepResult> => {
      if (step.agent === 'una') {
        await fs.writeFile(await context.workspace.resolve('design.md'), 'the design');
        return ok('designed');
      }
      if (step.agent === 'geordi' || step.agent === 'data') {
        const other = step.agent === 'geordi' ? 'data' : 'geordi';
        started[step.agent].resolve();
        // Each branch waits until the other has started: this only finishes if they run at the same time.
        await started[other].promise;
        seen[step.agent] = {
          root: context.workspace.root,
          cwd: context.cwd,
          design: await fs.readFile(await context.workspace.resolve('design.md'), 'utf8'),
          previous: context.previous.map((done) => done.step.agent),
        };
        await fs.writeFile(await context.workspace.resolve(`${step.agent}.txt`), step.agent);
        return ok(`${step.agent} done`);
      }
      seen.pike = {
        root: context.workspace.root,
        design: await fs.readFile(path.join(workspaceRoot, 'geordi.txt'), 'utf8'),
        previous: context.previous.map((done) => done.step.agent),
      };
      return ok('accepted');
    };
    const run = options({ runStep });
    const outcome = await runGoal(run);

    expect(outcome.kind).toBe('completed');
    for (const branch of ['geordi', 'data'] as const) {
      expect(seen[branch]?.root).toBe(path.join(stagingRoot, `step-${branch === 'geordi' ? 2 : 3}-${branch}`));
      expect(seen[branch]?.cwd).toBe(seen[branch]?.root);
      expect(seen[branch]?.design).toBe('the design');
      expect(seen[branch]?.previous).toEqual(['una']);
    }
    expect(seen.pike?.root).toBe(workspaceRoot);
    expect(seen.pike?.design).toBe('geordi');
    expect(await fs.readFile(path.join(workspaceRoot, 'data.txt'), 'utf8')).toBe('data');
    expect(await fs.readdir(stagingRoot)).toEqual([]);
    const merge = run.events.find((event) => event.type === 'merge');
    expect(merge?.type === 'merge' && merge.report.applied).toEqual(['data.txt', 'geordi.txt']);
    const lines = run.events.map(eventLine);
    expect(lines.slice(0, 3)).toEqual(['plan', 'step-start una', 'step-end una']);
    // The branches may start and end in either order; both end before the merge.
    expect(lines.slice(3, 5).sort()).toEqual(['step-start data', 'step-start geordi']);
    expect(lines.slice(5, 7).sort()).toEqual(['step-end data', 'step-end geordi']);
    expect(lines.slice(7)).toEqual(['merge', 'step-start pike', 'step-end pike']);
    if (outcome.kind === 'trivial') return;
    expect(outcome.stats.map((row) => row.agent)).toEqual(['una', 'geordi', 'data', 'pike']);
    expect(outcome.merges).toHaveLength(1);
  });

  it('reports parallel branches that wrote the same file differently as a conflict and leaves the original', async () => {
    const run = options({
      planner: async () => 'PARALLEL:\nAGENT: @geordi — a\nAGENT: @data — b\nEND PARALLEL\nEND',
      runStep: async (step, context) => {
        // As the file tools write: the staging's files may be hard links to the workspace's (issue 42).
        await writeFileBeneath(context.workspace, await context.workspace.resolve('shared.txt'), `${step.agent}\n`);
        return ok('written');
      },
    });
    const outcome = await runGoal(run);
    expect(outcome.kind === 'completed' && outcome.merges[0]?.conflicts.map((conflict) => conflict.path)).toEqual(['shared.txt']);
    expect(await fs.readFile(path.join(workspaceRoot, 'shared.txt'), 'utf8')).toBe('original\n');
    expect(await fs.readFile(path.join(workspaceRoot, '.tsuka/conflicts/step-1-geordi/shared.txt'), 'utf8')).toBe('geordi\n');
    expect(await fs.readFile(path.join(workspaceRoot, '.tsuka/conflicts/step-2-data/shared.txt'), 'utf8')).toBe('data\n');
  });

  it('grants one supervisor rework per goal, with the feedback, before the next step', async () => {
    const calls: string[] = [];
    const run = options({
      planner: async () => 'AGENT: @geordi — build\nAGENT: @worf — audit\nEND',
      runStep: async (step, context) => {
        calls.push(`${step.agent}${context.rework ? ` (rework: ${context.rework})` : ''}`);
        return ok(`${step.agent} output`);
      },
      supervisorReview: async () => ({ rework: 'add tests' }),
    });
    const outcome = await runGoal(run);
    expect(calls).toEqual(['geordi', 'geordi (rework: add tests)', 'worf']);
    expect(run.events.filter((event) => event.type === 'rework')).toHaveLength(1);
    expect(outcome.kind !== 'trivial' && outcome.steps.map((done) => `${done.step.agent}${done.reworked ? '*' : ''}`)).toEqual(['geordi', 'geordi*', 'worf']);
  });

  it('skips unknown agents with a reason and goes on after a failed step', async () => {
    const run = options({
      planner: async () => 'AGENT: @wrof — audit\nAGENT: @geordi — build\nAGENT: @data — document\nEND',
      runStep: async (step) => {
        if (step.agent === 'geordi') throw new Error('compiler crashed');
        return ok('documented');
      },
    });
    const outcome = await runGoal(run);
    expect(outcome.kind).toBe('completed');
    expect(run.events.map(eventLine)).toEqual(['plan', 'step-skipped wrof', 'step-start geordi', 'step-failed geordi', 'step-start data', 'step-end data']);
    const skipped = run.events[1];
    expect(skipped?.type === 'step-skipped' && skipped.reason).toBe('@wrof is not in the roster (did you mean @worf?)');
    const failed = run.events[3];
    expect(failed?.type === 'step-failed' && failed.error.message).toBe('compiler crashed');
  });

  it('stops everything on abort: no merge, no later step, staging copies removed', async () => {
    const controller = new AbortController();
    const bothStarted = { geordi: deferred(), data: deferred() };
    const run = options({
      signal: controller.signal,
      runStep: async (step, context) => {
        if (step.agent === 'una') return ok('designed');
        bothStarted[step.agent as 'geordi' | 'data'].resolve();
        await Promise.all([bothStarted.geordi.promise, bothStarted.data.promise]);
        await fs.writeFile(await context.workspace.resolve(`${step.agent}.txt`), 'half done');
        if (step.agent === 'geordi') controller.abort();
        // Like a real agent: it notices the stop and ends with AbortedError.
        if (!context.signal.aborted) await new Promise<void>((resolve) => context.signal.addEventListener('abort', () => resolve(), { once: true }));
        throw new AbortedError();
      },
    });
    const outcome = await runGoal(run);
    expect(outcome.kind).toBe('stopped');
    expect(run.events.map((event) => event.type)).not.toContain('merge');
    expect(run.events.map(eventLine)).not.toContain('step-start pike');
    expect(await fs.readdir(workspaceRoot)).toEqual(['shared.txt']);
    expect(await fs.readdir(stagingRoot)).toEqual([]);
  });
});

describe('runGoal failed steps', () => {
  it('counts thrown and reported failures by plan step, and a successful rework clears its step', async () => {
    let reviewed = false;
    const run = options({
      planner: async () => 'AGENT: @geordi — Build\nAGENT: @data — Document\nAGENT: @worf — Audit\nEND',
      runStep: async (step: PlanStep, context: StepRunContext) => {
        if (step.agent === 'geordi') return context.rework === undefined ? { ...ok('broken'), ok: false } : ok('fixed');
        if (step.agent === 'data') throw new Error('model down');
        return { ...ok('audit failed'), ok: false };
      },
      supervisorReview: async (step) => {
        if (step.agent !== 'geordi' || reviewed) return 'accept';
        reviewed = true;
        return { rework: 'fix the build' };
      },
    });
    const outcome = await runGoal(run);
    expect(outcome).toMatchObject({ kind: 'completed', failedSteps: [2, 3], attemptedSteps: 3 });
  });
});
