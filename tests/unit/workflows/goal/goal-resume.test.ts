/**
 * Issue 35: Resume after a restart keeps the work that finished before it. A parallel branch that
 * finished before the restart is merged with its group (its copy outlives the shutdown) and not run
 * again; a step that reported before the restart is not run again, nor are its approvals asked again.
 */
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { APPROVE_ACTION } from '../../../../src/commands/approvals/approval-flow.js';
import { RESUME_ACTION } from '../../../../src/commands/action-ids.js';
import { callTool, say } from '../../../../src/core/model/scripted-model.js';
import { startWorkflowHarness } from '../workflow-harness.js';
import { goalModelSteps, type GoalScript } from './goal-script.js';

type Harness = Awaited<ReturnType<typeof startWorkflowHarness>>;
let harness: Harness | undefined;
afterEach(async () => {
  await harness?.stop();
  harness = undefined;
});

async function start(script: GoalScript, asked: string[]): Promise<Harness> {
  harness = await startWorkflowHarness({ steps: goalModelSteps(script, asked) });
  await mkdir(harness.engine.workspace.root, { recursive: true });
  return harness;
}

const pendingApprovals = (h: Harness) => h.surface.messages.filter((message) => message.buttons.some((button) => button.actionId === APPROVE_ACTION));

async function approve(h: Harness, about: string): Promise<void> {
  const find = () => pendingApprovals(h).find((message) => message.text.includes(about));
  await h.surface.waitFor(() => find() !== undefined);
  const prompt = find()!;
  await h.click(APPROVE_ACTION, prompt.buttons.find((button) => button.actionId === APPROVE_ACTION)!.value, prompt.ref);
}

async function resume(h: Harness): Promise<void> {
  const withResume = () => h.thread().find((message) => message.buttons.some((button) => button.actionId === RESUME_ACTION));
  await h.surface.waitFor(() => withResume() !== undefined);
  const notice = withResume()!;
  await h.click(RESUME_ACTION, notice.buttons.find((button) => button.actionId === RESUME_ACTION)!.value, notice.ref);
}

const count = (asked: readonly string[], caller: string) => asked.filter((entry) => entry === caller).length;

describe('/goal Resume after a restart', () => {
  it('merges a parallel branch that finished before the restart with the one that did not, runs only the unfinished one, and reports what is there', async () => {
    const asked: string[] = [];
    // The parallel steps race for the run's one card at a time: Data asks only once Geordi's step is done,
    // so that Geordi's card comes first and Data's is the one pending at the restart (it failed about one
    // run in three when Data happened to ask first: Geordi's card then waited behind Data's).
    let letDataAsk: () => void = () => undefined;
    const dataMayAsk = new Promise<void>((resolve) => (letDataAsk = resolve));
    const h = await start(
      {
        plan: [say('PARALLEL:\nAGENT: @geordi — Write a.txt\nAGENT: @data — Write b.txt\nEND PARALLEL\nEND')],
        'step:1': [callTool('write_file', { path: 'a.txt', content: 'from geordi\n' }), say('Wrote a.txt.\nSTATUS: COMPLETED — a written')],
        // Before the restart its approval waits; after Resume the step starts again and asks again.
        'step:2': [
          async () => {
            await dataMayAsk;
            return callTool('write_file', { path: 'b.txt', content: 'from data\n' });
          },
          callTool('write_file', { path: 'b.txt', content: 'from data\n' }),
          say('Wrote b.txt.\nSTATUS: COMPLETED — b written'),
        ],
      },
      asked,
    );
    const first = h.slash('goal', 'write both files');
    await approve(h, 'a.txt');
    await h.surface.waitFor(() => h.thread().some((message) => message.text.includes('step done — step 1')));
    letDataAsk();
    await h.surface.waitFor(() => pendingApprovals(h).some((message) => message.text.includes('b.txt')));
    await h.restart();
    await first;

    // The click runs the resumed goal to its end: it settles once the approval below is given.
    const resumed = resume(h);
    await approve(h, 'b.txt');
    await resumed;

    // Only the unfinished branch ran again.
    expect(count(asked, 'step:1')).toBe(2);
    expect(count(asked, 'step:2')).toBe(3);
    // The finished branch's change is in the workspace, merged with the group.
    expect(await readFile(path.join(h.engine.workspace.root, 'a.txt'), 'utf8')).toBe('from geordi\n');
    expect(await readFile(path.join(h.engine.workspace.root, 'b.txt'), 'utf8')).toBe('from data\n');
    const texts = h.thread().map((message) => message.text);
    expect(texts.some((text) => text.includes('Merged 2 change(s): a.txt, b.txt'))).toBe(true);
    const final = texts.at(-1)!;
    expect(final).toContain('✅ Goal completed.');
    expect(final).toContain('2 step(s) done');
    const run = (await h.runs())[0]!;
    expect(run.status).toBe('completed');
  });

  it('does not run again a step that reported before the restart (nor ask its approval again)', async () => {
    const asked: string[] = [];
    let condensing: () => void = () => undefined;
    const condenseStarted = new Promise<void>((resolve) => (condensing = resolve));
    const long = `Wrote notes.md.\n${'Details of the work. '.repeat(150)}\nSTATUS: COMPLETED — notes written`;
    const h = await start(
      {
        plan: [say('AGENT: @geordi — Write notes.md\nAGENT: @data — Check notes.md\nEND')],
        'step:1': [callTool('write_file', { path: 'notes.md', content: '# Notes\n' }), say(long)],
        // The restart comes while step 1's long output is being condensed: after the step reported.
        condense: [
          async (request) => {
            condensing();
            await new Promise<void>((resolve) => request.signal?.addEventListener('abort', () => resolve(), { once: true }));
            return say('never used');
          },
        ],
        'step:2': [say('Checked.\nSTATUS: COMPLETED — checked')],
      },
      asked,
    );
    const first = h.slash('goal', 'write and check the notes');
    await approve(h, 'notes.md');
    await condenseStarted;
    await h.restart();
    await first;

    await resume(h);
    expect(count(asked, 'step:1')).toBe(2);
    expect(count(asked, 'step:2')).toBe(1);
    // One approval in all: step 1's write was not asked again.
    expect(
      h.surface.messages.filter((message) => message.text.includes('write_file') && message.text.includes('notes.md') && /Approved/.test(message.text)),
    ).toHaveLength(1);
    expect(await readFile(path.join(h.engine.workspace.root, 'notes.md'), 'utf8')).toBe('# Notes\n');
    const final = h.thread().at(-1)!.text;
    expect(final).toContain('✅ Goal completed.');
    expect(final).toContain('2 step(s) done');
  });
});
