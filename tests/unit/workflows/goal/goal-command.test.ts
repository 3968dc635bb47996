/** /goal on the command layer: the real engine and tools, the scripted model, the in-memory surface. */
import { mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { APPROVE_ACTION } from '../../../../src/commands/approvals/approval-flow.js';
import { STOP_ACTION } from '../../../../src/commands/action-ids.js';
import { GOAL_STAGING_FOLDER, NO_REVIEW_NOTE } from '../../../../src/commands/workflows/goal/goal-command.js';
import { callTool, say } from '../../../../src/core/model/scripted-model.js';
import { lastUserOf } from '../../../support/scripted-callers.js';
import { startWorkflowHarness } from '../workflow-harness.js';
import { goalModelSteps, type GoalScript } from './goal-script.js';

type Harness = Awaited<ReturnType<typeof startWorkflowHarness>>;
let harness: Harness | undefined;
afterEach(async () => {
  await harness?.stop();
  harness = undefined;
});

async function start(script: GoalScript, asked: string[] = []): Promise<Harness> {
  harness = await startWorkflowHarness({ steps: goalModelSteps(script, asked) });
  await mkdir(harness.engine.workspace.root, { recursive: true });
  return harness;
}

/** Approves the next `count` approval prompts as they appear, as the requester. */
async function approve(h: Harness, count: number): Promise<string[]> {
  const decided = new Set<string>();
  const asked: string[] = [];
  const pending = () => h.surface.messages.find((message) => !decided.has(message.ref) && message.buttons.some((button) => button.actionId === APPROVE_ACTION));
  for (let index = 0; index < count; index++) {
    await h.surface.waitFor(() => pending() !== undefined);
    const prompt = pending()!;
    decided.add(prompt.ref);
    asked.push(prompt.text);
    await h.click(APPROVE_ACTION, prompt.buttons.find((button) => button.actionId === APPROVE_ACTION)!.value, prompt.ref);
  }
  return asked;
}

const texts = (h: Harness) => h.thread().map((message) => `${message.identity?.name ?? 'bot'}: ${message.text}`);

describe('/goal', () => {
  it('ends a trivial goal with "no team needed" and the planner\'s answer, after one call without tools', async () => {
    const h = await start({ plan: [say('NO TEAM NEEDED: 2 + 2 is 4.')] });
    await h.slash('goal', 'what is 2 + 2?');
    const root = h.surface.messages[0]!;
    expect(root.text).toBe('🎯 Goal by <@playground:alice>: what is 2 + 2?');
    const thread = h.thread();
    expect(thread).toHaveLength(2);
    expect(thread[0]!.text).toMatch(/^🛰 \*\*Goal: what is 2 \+ 2\?\*\* · ✅ finished/);
    expect(thread[1]!.text).toBe('💡 No team needed.\n2 + 2 is 4.');
    expect(h.model.requests).toHaveLength(1);
    expect(h.model.requests[0]!.tools ?? []).toEqual([]);
    expect(h.model.requests[0]!.messages[0]!.content).toContain('@geordi');
    const [run] = await h.runs();
    expect(run).toMatchObject({ kind: 'goal', status: 'completed' });
  });

  it('runs a PARALLEL group in staging copies: different files are merged, the same file is a reported conflict; no supervisor in the plan, no review', async () => {
    const asked: string[] = [];
    const h = await start(
      {
        plan: [say('PARALLEL:\nAGENT: @geordi — Write the code\nAGENT: @data — Write the docs\nEND PARALLEL\nEND')],
        'step:1': [
          callTool('write_file', { path: 'code.txt', content: 'code\n' }),
          callTool('execute_command', { command: 'ls' }),
          callTool('write_file', { path: 'shared.txt', content: 'geordi was here\n' }),
          say('Wrote code.txt.\nSTATUS: COMPLETED — code written'),
        ],
        'step:2': [
          callTool('write_file', { path: 'docs.txt', content: 'docs\n' }),
          callTool('write_file', { path: 'shared.txt', content: 'data was here\n' }),
          say('Wrote docs.txt.\nSTATUS: COMPLETED — docs written'),
        ],
        // Issue 35: TSUKA is asked to merge; this model answers without a merged file, so the conflict stays saved.
        'merge:shared.txt': [say('I would rather a person merged these.')],
      },
      asked,
    );
    const workspace = h.engine.workspace.root;
    await writeFile(path.join(workspace, 'shared.txt'), 'original\n');
    await writeFile(path.join(workspace, 'README.md'), 'readme\n');
    const running = h.slash('goal', 'code and docs');
    const prompts = await approve(h, 4);
    await running;

    expect(prompts.filter((prompt) => prompt.includes('**geordi** wants to run `write_file`'))).toHaveLength(2);
    // The branch's command ran in its copy: it lists the workspace's README and its own unmerged file.
    const listing = h.model.requests.flatMap((request) => request.messages).find((message) => message.role === 'tool' && message.content.includes('README.md'));
    expect(listing?.content).toContain('code.txt');
    expect(await readFile(path.join(workspace, 'code.txt'), 'utf8')).toBe('code\n');
    expect(await readFile(path.join(workspace, 'docs.txt'), 'utf8')).toBe('docs\n');
    expect(await readFile(path.join(workspace, 'shared.txt'), 'utf8')).toBe('original\n');
    expect(await readdir(path.join(workspace, '.tsuka', 'conflicts'))).toHaveLength(2);
    await expect(stat(path.join(workspace, GOAL_STAGING_FOLDER, (await h.runs())[0]!.id))).rejects.toThrow();

    const thread = texts(h);
    expect(thread[1]).toBe('bot: 📋 Plan (2 steps):\n⇉ in parallel:\n    1. @geordi — Write the code\n    2. @data — Write the docs');
    const merge = thread.find((line) => line.startsWith('bot: 🔀'))!;
    expect(merge).toContain('Merged 2 change(s): code.txt, docs.txt');
    expect(merge).toContain('⚠ 1 conflict(s) — not written');
    expect(merge).toMatch(/shared\.txt \(changed differently by .*step-1-geordi, .*step-2-data\)/);
    // The plan names no supervisor: the roster's Pike reviews nothing, and the thread says so once.
    const speakers = h
      .thread()
      .filter((message) => message.identity)
      .map((message) => message.identity!.name);
    // Each reply goes on below every approval card it asked for (issue 24): several messages per speaker.
    // Issue 35: no supervisor, yet the conflict is offered to TSUKA for a merge (here it proposes no file: the conflict stays saved).
    expect([...new Set(speakers)].sort()).toEqual(['Data', 'Geordi', 'TSUKA']);
    expect(thread.filter((line) => line === `bot: ${NO_REVIEW_NOTE}`)).toHaveLength(1);
    expect(thread).toContain('bot: 🔀 shared.txt: TSUKA proposed no merged file; the conflict stays saved in .tsuka/conflicts/.');
    expect(asked.filter((caller) => caller.startsWith('review'))).toEqual([]);
    const geordiLast = h
      .thread()
      .filter((message) => message.identity?.name === 'Geordi')
      .at(-1)!;
    expect(geordiLast.text).toContain('✅ step done — step 1: code written');
    const final = thread.at(-1)!;
    expect(final).toContain('✅ Goal completed.');
    expect(final).toContain('1 merge(s), 1 conflict(s)');
    expect(final).toMatch(/```\nagent\s+output tokens\s+peak context\s+total tokens\s+time\s+tokens\/s\n/);
    expect(final).toMatch(/\ngeordi\s+\d+/);
    expect(final).toMatch(/\ndata\s+\d+/);
    expect(asked.filter((caller) => caller === 'plan')).toHaveLength(1);

    const [run] = await h.runs();
    expect(run).toMatchObject({ kind: 'goal', status: 'completed' });
    expect(run!.stats!['geordi.outputTokens']).toBeGreaterThan(0);
    const events = await h.engine.runs.events(run!.id);
    expect(events.filter((event) => event.type === 'tool-call').map((event) => (event.type === 'tool-call' ? event.tool : ''))).toEqual(
      expect.arrayContaining(['execute_command', 'write_file']),
    );
    expect(events.some((event) => event.type === 'tool-call' && event.tool === 'cast_vote')).toBe(false);
    expect(events.some((event) => event.type === 'note' && event.text === NO_REVIEW_NOTE)).toBe(true);
    expect(events.some((event) => event.type === 'note' && event.text.includes('🔀'))).toBe(true);
  });

  it('grants one supervisor rework with the note, condenses a long output into a run memory fact, and reviews nothing after', async () => {
    const asked: string[] = [];
    const longReport = `Wrote hello.txt and its test.\n${'Detail line of the work. '.repeat(120)}\nSTATUS: COMPLETED — with a test`;
    const h = await start(
      {
        plan: [say('1. AGENT: @geordi — Write hello.txt\n2. AGENT: @worf — Audit hello.txt\n3. AGENT: @pike — Sign off\nEND')],
        'step:1': [say('Wrote hello.txt.\nSTATUS: COMPLETED — hello written')],
        'review:1': [callTool('cast_vote', { vote: 'CHANGE', reason: 'add a test for hello.txt' }), say('Needs a test.')],
        'rework:1': [(request) => say(lastUserOf(request as never).includes('add a test for hello.txt') ? longReport : 'no feedback seen')],
        condense: [say('hello.txt and hello.test written; tests pass.')],
        'step:2': [
          (request) => say(lastUserOf(request as never).includes('hello.test written') ? 'Audit clean, saw the summary.' : 'Audit without the summary.'),
        ],
        'step:3': [say('Signed off.\nSTATUS: COMPLETED — signed off')],
      },
      asked,
    );
    await h.slash('goal', 'hello with a test');
    // The plan's own supervisor (step 3) reviews; after the one rework nothing more, and never its own step.
    expect(asked).toEqual(['plan', 'step:1', 'review:1', 'review:1', 'rework:1', 'condense', 'step:2', 'step:3']);
    expect(texts(h)).not.toContain(`bot: ${NO_REVIEW_NOTE}`);
    const thread = texts(h);
    expect(thread).toContain('bot: ↩ Step 1 (@geordi) goes back for one rework: add a test for hello.txt');
    const pike = h.thread().find((message) => message.identity?.name === 'Pike')!;
    expect(pike.text).toContain('🗳 step 1 sent back — add a test for hello.txt');
    const geordi = h.thread().filter((message) => message.identity?.name === 'Geordi');
    expect(geordi).toHaveLength(2);
    expect(geordi[1]!.text).toContain('📝 long output');
    expect(h.thread().find((message) => message.identity?.name === 'Worf')!.text).toContain('Audit clean, saw the summary.');
    // The goal's run facts belong to the channel where /goal was typed (issue 21).
    const facts = await h.engine.memory.list('channel:playground:general');
    expect(facts).toHaveLength(1);
    expect(facts[0]).toMatchObject({ kind: 'run', author: 'geordi' });
    expect(facts[0]!.content).toContain('hello.txt and hello.test written; tests pass.');
    expect(thread.at(-1)).toMatch(/✅ Goal completed\.\n4 step\(s\) done/);
  });

  it('stops the whole goal from the run card: running steps are cancelled, nothing is merged, the run is stored as stopped', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let blocked: () => void = () => undefined;
    const geordiWaiting = new Promise<void>((resolve) => {
      blocked = resolve;
    });
    const h = await start({
      plan: [say('PARALLEL:\nAGENT: @geordi — Build\nAGENT: @data — Document\nEND PARALLEL\nAGENT: @worf — Audit\nEND')],
      'step:1': [
        callTool('write_file', { path: 'half-done.txt', content: 'half\n' }),
        async () => {
          blocked();
          await gate;
          return say('too late');
        },
      ],
      'step:2': [say('Docs done.\nSTATUS: COMPLETED — docs')],
    });
    const running = h.slash('goal', 'build and document');
    await approve(h, 1);
    await geordiWaiting;
    const card = h.thread().find((message) => message.text.startsWith('🛰'))!;
    await h.click(STOP_ACTION, card.buttons.find((button) => button.actionId === STOP_ACTION)!.value, card.ref);
    release();
    await running;

    const workspace = h.engine.workspace.root;
    await expect(stat(path.join(workspace, 'half-done.txt'))).rejects.toThrow();
    const thread = texts(h);
    expect(thread.some((line) => line.startsWith('bot: 🔀'))).toBe(false);
    expect(h.thread().some((message) => message.identity?.name === 'Worf')).toBe(false);
    expect(
      h
        .thread()
        .filter((message) => message.identity?.name === 'Geordi')
        .at(-1)!.text,
    ).toContain('⏹ Stopped.');
    expect(thread.at(-1)).toContain('⏹ Stopped by <@playground:alice>.');
    expect(thread.at(-1)).toContain('unfinished parallel steps were not merged');
    expect(card.text).toContain('stopped');
    expect(card.buttons).toEqual([]);
    const [run] = await h.runs();
    expect(run!.status).toBe('stopped');
    expect(h.layer.activeRuns.list()).toEqual([]);
    await expect(stat(path.join(workspace, GOAL_STAGING_FOLDER, run!.id))).rejects.toThrow();
  });

  it('answers an empty /goal with its usage and starts nothing', async () => {
    const h = await start({});
    expect(await h.slash('goal', '   ')).toEqual([expect.stringContaining('Usage: /goal <objective>')]);
    expect(h.surface.messages).toEqual([]);
    expect(await h.runs()).toEqual([]);
  });
});
