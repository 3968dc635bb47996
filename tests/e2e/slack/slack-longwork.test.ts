/**
 * Issue 25 on the Slack emulator, one app: a /goal's plan waits for Run plan (an edit by reply,
 * Cancel running nothing), Resume after a restart continuing without asking step 1's agent again,
 * `/tsuka schedule` producing runs, listed and removed, and the GPU queue: a person's turn served
 * before a scheduled run that waited first, whose run card says its place and expected wait.
 */
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ScriptedReplySpec } from '../../support/scripted-model-server.js';
import { callerOf, lastUserOf } from '../../support/scripted-callers.js';
import { createScheduleStore } from '../../../src/core/schedules/schedule-store.js';
import { writeTinyNodeProject } from '../../support/tiny-node-project.js';
import { buttonsOf, startSlackHarness, type SlackHarness } from './slack-harness.js';

const FAST = {
  emulator: { rateLimits: { postMessageBurst: 20, postMessagePerChannelPerSecond: 40, updatePerMinute: 2400 } },
  rateLimits: { postBurst: 20, postsPerSecondPerChannel: 40, updatesPerMinute: 2400 },
};

let h: SlackHarness;
beforeAll(async () => {
  // Schedules every 2 s here: the floor (TSUKA_SCHEDULE_MIN_INTERVAL_S, 60 by default) is lowered.
  h = await startSlackHarness({ ...FAST, environment: { TSUKA_GOAL_CONFIRM: '1', TSUKA_SCHEDULE_MIN_INTERVAL_S: '1' } });
}, 30_000);
afterAll(async () => {
  await h?.stop();
});

/** Answers each model call by who asks (planner, step n): enqueued once per scripted answer. */
function scriptGoal(script: Record<string, ScriptedReplySpec[]>): void {
  const total = Object.values(script).reduce((sum, answers) => sum + answers.length, 0);
  for (let index = 0; index < total; index++)
    h.model.enqueue((body) => script[callerOf(body as never)]?.shift() ?? { text: `(nothing scripted for ${callerOf(body as never)})` });
}

type Message = ReturnType<SlackHarness['botReplies']>[number];
const withButton = (messages: Message[], actionId: string) => messages.filter((message) => buttonsOf(message).some((button) => button.action_id === actionId));

async function startGoal(channel: string, text: string): Promise<Message> {
  await h.slack.deliverSlashCommand({ command: '/goal', text, userId: 'U1', channelId: channel });
  await h.slack.waitFor(() => h.slack.messages(channel).some((message) => message.bot_id && message.text.startsWith('🎯')));
  return h.slack.messages(channel).find((message) => message.bot_id && message.text.startsWith('🎯'))!;
}

async function waitForButton(channel: string, root: Message, actionId: string, count = 1): Promise<Message> {
  await h.slack.waitFor(() => withButton(h.botReplies(channel, root.ts), actionId).length >= count, { timeoutMs: 10_000 });
  return withButton(h.botReplies(channel, root.ts), actionId).at(-1)!;
}

function click(channel: string, message: Message, actionId: string, userId: string) {
  const button = buttonsOf(message).find((candidate) => candidate.action_id === actionId)!;
  return h.slack.deliverBlockAction({ userId, channelId: channel, messageTs: message.ts, threadTs: message.thread_ts, actionId, value: button.value });
}

const callers = () => h.model.requests.map((request) => callerOf(request.body as never));

describe('Slack /goal with TSUKA_GOAL_CONFIRM=1', () => {
  it('shows the plan card and runs no step before Run plan; a reply edits the plan; only the requester or an admin runs it', async () => {
    const before = h.model.requests.length;
    scriptGoal({
      plan: [{ text: 'AGENT: @geordi — Draft notes.md\nAGENT: @data — Document the notes\nEND' }],
      'step:1': [{ text: 'Wrote the notes.\nSTATUS: COMPLETED — written' }],
      'step:2': [{ text: 'Checked.\nSTATUS: COMPLETED — checked' }],
    });
    const root = await startGoal('C1', 'write the release notes --budget 50k');
    const card = await waitForButton('C1', root, 'tsuka_plan_run');
    expect(buttonsOf(card).map((button) => button.text.text)).toEqual(['Run plan', 'Edit', 'Cancel']);
    expect(card.text).toContain('nothing runs until');
    expect(card.text).toMatch(/1\. @geordi \(Geordi, \w+\) — Draft notes\.md/);
    expect(card.text).toContain('Approvals to expect');
    expect(card.text).toContain('Budget: 50,000 tokens');
    // Only the planner was asked: no step has started.
    expect(callers().slice(before)).toEqual(['plan']);

    // The requester replies with a changed plan: a new card replaces the first.
    await h.slack.threadMessage({ userId: 'U1', channelId: 'C1', threadTs: root.ts, text: 'AGENT: @geordi — Write notes.md\nAGENT: @data — Check notes.md' });
    const edited = await waitForButton('C1', root, 'tsuka_plan_run', 1);
    await h.slack.waitFor(() => withButton(h.botReplies('C1', root.ts), 'tsuka_plan_run')[0]?.text.includes('Check notes.md') === true);
    const current = withButton(h.botReplies('C1', root.ts), 'tsuka_plan_run')[0] ?? edited;
    expect(current.text).toContain('Write notes.md');
    expect(h.botReplies('C1', root.ts).find((message) => message.ts === card.ts)?.text).toContain('Replaced by');

    // Someone else may not run it.
    await click('C1', current, 'tsuka_plan_run', 'U2');
    await h.slack.waitFor(() => h.slack.ephemerals.some((message) => message.user === 'U2' && /Only the person who started this goal/.test(message.text)));
    expect(callers().slice(before)).toEqual(['plan']);

    await click('C1', current, 'tsuka_plan_run', 'U1');
    await h.slack.waitFor(() => h.botReplies('C1', root.ts).some((message) => message.text.includes('Goal completed')), { timeoutMs: 10_000 });
    expect(callers().slice(before)).toEqual(['plan', 'step:1', 'step:2']);
    // The steps ran the edited plan.
    const stepPrompt = h.model.requests.slice(before)[1]!.body as { messages: { role: string; content: string }[] };
    expect(stepPrompt.messages.at(-1)!.content).toContain('Write notes.md');
    expect(h.botReplies('C1', root.ts).find((message) => message.ts === current.ts)?.text).toContain('Run by <@U1>');
  }, 30_000);

  it('Cancel ends the goal with nothing run', async () => {
    const before = h.model.requests.length;
    scriptGoal({ plan: [{ text: 'AGENT: @geordi — Delete the build folder\nEND' }] });
    const root = await startGoal('C2', 'clean up');
    const card = await waitForButton('C2', root, 'tsuka_plan_cancel');
    await click('C2', card, 'tsuka_plan_cancel', 'U1');
    await h.slack.waitFor(() => h.botReplies('C2', root.ts).some((message) => message.text.includes('Goal cancelled')), { timeoutMs: 10_000 });
    expect(callers().slice(before)).toEqual(['plan']);
    expect(h.botReplies('C2', root.ts).find((message) => message.ts === card.ts)?.text).toContain('Cancelled by <@U1> — nothing ran');
    const runs = await h.app.engine.runs.list();
    expect(runs.find((run) => run.where.threadId?.endsWith(root.ts))?.status).toBe('stopped');
  }, 20_000);

  it('a restart during step 2 leaves a Resume button; Resume asks step 2 again (and its approval), never step 1', async () => {
    const before = h.model.requests.length;
    const write = { toolCalls: [{ name: 'write_file', arguments: { path: 'resumed.md', content: '# Resumed\n' } }] };
    scriptGoal({
      plan: [{ text: 'AGENT: @geordi — Draft the outline\nAGENT: @data — Write resumed.md\nEND' }],
      'step:1': [{ text: 'Outline drafted.\nSTATUS: COMPLETED — outlined' }],
      // Before the restart the approval is pending; after Resume the step asks again from its start.
      'step:2': [write, write, { text: 'Wrote it.\nSTATUS: COMPLETED — written' }],
    });
    const root = await startGoal('C3', 'write resumed.md');
    await click('C3', await waitForButton('C3', root, 'tsuka_plan_run'), 'tsuka_plan_run', 'U1');
    const firstPrompt = await waitForButton('C3', root, 'tsuka_approve');
    expect(callers().slice(before)).toEqual(['plan', 'step:1', 'step:2']);

    await h.restartApp();
    const resume = await waitForButton('C3', root, 'tsuka_resume');
    expect(resume.text).toContain('Resume');
    await click('C3', resume, 'tsuka_resume', 'U2');
    await h.slack.waitFor(() => h.slack.ephemerals.some((message) => message.user === 'U2' && /Only the person who started this goal/.test(message.text)));
    await click('C3', resume, 'tsuka_resume', 'U1');
    // The approval pending at the restart (its buttons gone, marked expired) is asked again.
    await h.slack.waitFor(() => withButton(h.botReplies('C3', root.ts), 'tsuka_approve').some((message) => message.ts !== firstPrompt.ts), {
      timeoutMs: 10_000,
    });
    expect(h.botReplies('C3', root.ts).find((message) => message.ts === firstPrompt.ts)?.text).toMatch(/Expired|expired/);
    await click('C3', withButton(h.botReplies('C3', root.ts), 'tsuka_approve').at(-1)!, 'tsuka_approve', 'U1');
    await h.slack.waitFor(() => h.botReplies('C3', root.ts).some((message) => message.text.includes('Goal completed')), { timeoutMs: 10_000 });
    expect(callers().slice(before)).toEqual(['plan', 'step:1', 'step:2', 'step:2', 'step:2']);
    expect(await readFile(path.join(h.workspace, 'resumed.md'), 'utf8')).toBe('# Resumed\n');
    const run = (await h.app.engine.runs.list()).find((record) => record.where.threadId?.endsWith(root.ts));
    expect(run?.status).toBe('completed');
  }, 40_000);
});

describe('Slack /team Resume', () => {
  /** `team:<member>:<turns in its progress digest>`: who speaks, and how much of the run it was shown. */
  const teamCaller = (request: { body: unknown }) => {
    const user = lastUserOf(request.body as never);
    const member = /Your turn, (\S+?)\./.exec(user)?.[1] ?? 'unknown';
    return `team:${member}:${(user.match(/^- \[/gm) ?? []).length}`;
  };
  const teamCallers = (from: number) => h.model.requests.slice(from).map(teamCaller);

  it("a restart during round 2 leaves a Resume button; Resume runs round 2 again with round 1 as it was, never round 1's members", async () => {
    const before = h.model.requests.length;
    const write = { toolCalls: [{ name: 'write_file', arguments: { path: 'ops-fix.md', content: '# Fixed\n' } }] };
    const script: Record<string, ScriptedReplySpec[]> = {
      'team:OBrien:0': [{ text: 'Disks are fine.\nSTATUS: CONTINUE — disks fine' }],
      'team:Scotty:1': [{ text: 'The pipeline is slow.\nSTATUS: CONTINUE — pipeline slow' }],
      'team:Worf:2': [{ text: 'No open ports.\nSTATUS: CONTINUE — ports closed' }],
      // Before the restart the approval is pending; after Resume the turn asks again from its start.
      'team:OBrien:3': [write, write, { text: 'Wrote the fix.\nSTATUS: COMPLETED — fixed' }],
      'team:Scotty:4': [{ text: 'Pipeline fixed.\nSTATUS: COMPLETED — fast again' }],
      'team:Worf:5': [{ text: 'Audited.\nSTATUS: COMPLETED — safe' }],
    };
    const total = Object.values(script).reduce((sum, answers) => sum + answers.length, 0);
    for (let index = 0; index < total; index++)
      h.model.enqueue((body) => script[teamCaller({ body })]?.shift() ?? { text: `(nothing scripted for ${teamCaller({ body })})` });
    await h.slack.deliverSlashCommand({ command: '/team', text: 'ops_squad speed up the build host', userId: 'U1', channelId: 'C7' });
    await h.slack.waitFor(() => h.slack.messages('C7').some((message) => message.bot_id && message.text.startsWith('👥')));
    const root = h.slack.messages('C7').find((message) => message.bot_id && message.text.startsWith('👥'))!;
    const firstPrompt = await waitForButton('C7', root, 'tsuka_approve');
    expect(teamCallers(before)).toEqual(['team:OBrien:0', 'team:Scotty:1', 'team:Worf:2', 'team:OBrien:3']);

    await h.restartApp();
    const resume = await waitForButton('C7', root, 'tsuka_resume');
    await click('C7', resume, 'tsuka_resume', 'U2');
    await h.slack.waitFor(() => h.slack.ephemerals.some((message) => message.user === 'U2' && /Only the person who started this team run/.test(message.text)));
    await click('C7', resume, 'tsuka_resume', 'U1');
    await h.slack.waitFor(() => withButton(h.botReplies('C7', root.ts), 'tsuka_approve').some((message) => message.ts !== firstPrompt.ts), {
      timeoutMs: 10_000,
    });
    await click('C7', withButton(h.botReplies('C7', root.ts), 'tsuka_approve').at(-1)!, 'tsuka_approve', 'U1');
    await h.slack.waitFor(() => h.botReplies('C7', root.ts).some((message) => message.text.includes('Team run completed')), { timeoutMs: 10_000 });

    // Round 2 ran again, seeing round 1's three turns; no member of round 1 was asked again.
    expect(teamCallers(before)).toEqual([
      'team:OBrien:0',
      'team:Scotty:1',
      'team:Worf:2',
      'team:OBrien:3',
      'team:OBrien:3',
      'team:OBrien:3',
      'team:Scotty:4',
      'team:Worf:5',
    ]);
    const resumedPrompt = lastUserOf(h.model.requests.at(-3)!.body as never);
    expect(resumedPrompt).toContain('- [OBrien] CONTINUE: disks fine');
    expect(resumedPrompt).toContain('The pipeline is slow.');
    const notes = h.botReplies('C7', root.ts).map((message) => message.text);
    expect(notes.filter((text) => text.includes('— Round 1 of 2 —'))).toHaveLength(1);
    expect(notes.filter((text) => text.includes('— Round 2 of 2 —'))).toHaveLength(2);
    expect(notes.some((text) => text.includes('Resuming after 1 completed round'))).toBe(true);
    expect(await readFile(path.join(h.workspace, 'ops-fix.md'), 'utf8')).toBe('# Fixed\n');
    const run = (await h.app.engine.runs.list()).find((record) => record.where.threadId?.endsWith(root.ts));
    expect(run?.status).toBe('completed');
  }, 40_000);
});

describe('Slack /goal in a Node project (staging that can build)', () => {
  /** The tool results in the last request of one caller (each request carries the turn so far). */
  const toolOutputs = (from: number, caller: string) => {
    const last = h.model.requests.slice(from).findLast((request) => callerOf(request.body as never) === caller);
    const messages = (last?.body as { messages?: { role: string; content: string }[] } | undefined)?.messages ?? [];
    return messages.filter((message) => message.role === 'tool').map((message) => message.content);
  };

  it("a parallel step runs `npm test` with the project's node_modules and `git diff` in its staging copy, both showing its change", async () => {
    await writeTinyNodeProject(h.workspace);
    const before = h.model.requests.length;
    const call = (name: string, args: Record<string, unknown>) => ({ toolCalls: [{ name, arguments: args }] });
    scriptGoal({
      plan: [{ text: 'PARALLEL:\nAGENT: @geordi — Change the greeting and run the tests\nAGENT: @data — Read the project\nEND PARALLEL\nEND' }],
      'step:1': [
        call('write_file', { path: 'greet.js', content: 'module.exports = (name) => `Hi, ${name}!`;\n' }),
        call('execute_command', { command: 'npm test' }),
        call('execute_command', { command: 'git diff' }),
        { text: 'Changed and tested.\nSTATUS: COMPLETED — greeting changed, tests pass' },
      ],
      'step:2': [{ text: 'Read it.\nSTATUS: COMPLETED — read' }],
    });
    const root = await startGoal('C6', 'say hi instead of hello');
    await click('C6', await waitForButton('C6', root, 'tsuka_plan_run'), 'tsuka_plan_run', 'U1');
    // The write and `npm test` ask the requester (RESTRICTED); `git diff` is SAFE.
    const clicked = new Set<string>();
    for (const _ of [1, 2]) {
      await h.slack.waitFor(() => withButton(h.botReplies('C6', root.ts), 'tsuka_approve').some((message) => !clicked.has(message.ts)), { timeoutMs: 10_000 });
      const prompt = withButton(h.botReplies('C6', root.ts), 'tsuka_approve').find((message) => !clicked.has(message.ts))!;
      clicked.add(prompt.ts);
      await click('C6', prompt, 'tsuka_approve', 'U1');
    }
    await h.slack.waitFor(() => h.botReplies('C6', root.ts).some((message) => message.text.includes('Goal completed')), { timeoutMs: 20_000 });

    const [written, tested, diffed] = toolOutputs(before, 'step:1');
    expect(written).toContain('greet.js');
    expect(tested).toMatch(/^exit 0\n/);
    expect(tested).toContain('fake-assert says: Hi, team!');
    expect(diffed).toMatch(/^exit 0\n/);
    expect(diffed).toContain('-module.exports = (name) => `Hello, ${name}!`;');
    expect(diffed).toContain('+module.exports = (name) => `Hi, ${name}!`;');
    // Merged back into the workspace; the real repository only sees the changed file.
    expect(await readFile(path.join(h.workspace, 'greet.js'), 'utf8')).toContain('Hi, ');
    expect(execFileSync('git', ['-C', h.workspace, 'status', '--porcelain', '--', '.', ':!.tsuka'], { encoding: 'utf8' })).toBe(' M greet.js\n');
  }, 40_000);
});

/** Sends `/tsuka <text>` as `userId` and resolves to the ephemeral answer. */
async function tsuka(text: string, userId = 'U1', channelId = 'C4'): Promise<string> {
  const before = h.slack.responses.length;
  await h.slack.deliverSlashCommand({ command: '/tsuka', text, userId, channelId });
  await h.slack.waitFor(() => h.slack.responses.length > before);
  return String((h.slack.responses.at(-1)!.body as { text?: string }).text ?? '');
}

describe('Slack /tsuka schedule', () => {
  const scheduledRoots = () => h.slack.messages('C4').filter((message) => message.bot_id && message.text.startsWith('⏰ Scheduled'));

  it('`every 2s` produces runs in the channel, is listed there with its next run, and the owner removes it', async () => {
    expect(await tsuka('schedule every 2s @nobody ping')).toContain('There is no character "nobody"');
    const made = await tsuka('schedule every 2s @geordi ping the build');
    const id = /`(sch-[0-9a-f]{6})`/.exec(made)?.[1];
    expect(id, made).toBeDefined();
    expect(made).toContain('It runs as you');
    // Two firings, each a root message whose thread the character answers.
    await h.slack.waitFor(() => scheduledRoots().filter((root) => h.botReplies('C4', root.ts).some((reply) => reply.username === 'Geordi')).length >= 2, {
      timeoutMs: 15_000,
    });
    expect(scheduledRoots()[0]!.text).toContain(`⏰ Scheduled (\`${id}\`, every 2s) by <@U1>: @geordi ping the build`);
    const listed = await tsuka('schedules');
    expect(listed).toContain(id);
    expect(listed).toMatch(/every 2s · @geordi ping the build · next /);
    // Another channel does not see it, another person cannot remove it.
    expect(await tsuka('schedules', 'U1', 'C5')).toContain('No schedules in this channel');
    expect(await tsuka(`unschedule ${id}`, 'U2')).toContain('Only the schedule’s owner or an admin');
    expect(await tsuka(`unschedule ${id}`)).toContain(`Removed the schedule \`${id}\``);
    expect(await tsuka('schedules')).toContain('No schedules in this channel');
    expect(await createScheduleStore(h.app.engine.store).list()).toEqual([]);
    // A firing that began before the removal finishes; nothing of it is left to take the next test's model answers.
    await vi.waitFor(async () => expect((await h.app.engine.runs.list()).filter((run) => run.status === 'running')).toEqual([]), {
      timeout: 10_000,
      interval: 50,
    });
  }, 30_000);
});

describe('Slack GPU queue', () => {
  it('serves a person before a scheduled /goal that waited first; the goal’s run card says its place and wait', async () => {
    // `tsuka benchmark` measured this model: the estimates use its speed.
    const modelId = h.app.engine.model!.modelId;
    await h.app.engine.tiers.save({
      modelId,
      providerId: h.app.engine.model!.providerId,
      measuredAt: new Date().toISOString(),
      tier: h.app.engine.tiers.tierFor(modelId),
      generationTokensPerSecond: 30,
      quality: { passed: 0, total: 0, score: 0, toolScore: 0 },
      cases: [],
    });
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const before = h.model.requests.length;
    for (let index = 0; index < 4; index++)
      h.model.enqueue((body) => {
        const caller = callerOf(body as never);
        if (caller === 'plan') return { text: 'AGENT: @geordi — List the outdated packages\nEND' };
        if (caller === 'step:1') return { text: 'Nothing is outdated.\nSTATUS: COMPLETED — checked' };
        const user = lastUserOf(body as never);
        if (user.includes('hold the GPU')) return { text: 'Held it.', holdUntil: held };
        return { text: 'Two tests are flaky.' };
      });
    // A reply holds the one generation slot.
    await h.slack.mention({ userId: 'U1', channelId: 'C6', text: `<@${h.slack.botUserId}> geordi hold the GPU` });
    await h.model.waitForRequests(before + 1);

    // A schedule fires a /goal: its planner waits for the model, first in the queue.
    const made = await tsuka('schedule every 2s /goal check the dependencies', 'U1', 'C6');
    const id = /`(sch-[0-9a-f]{6})`/.exec(made)?.[1];
    expect(id, made).toBeDefined();
    await h.slack.waitFor(
      () => h.slack.messages('C6').some((message) => message.bot_id && message.text.includes('🎯 Goal') && message.text.includes('check the dependencies')),
      { timeoutMs: 10_000 },
    );
    expect(await tsuka(`unschedule ${id}`, 'U1', 'C6')).toContain('Removed');
    const goalRoot = h.slack
      .messages('C6')
      .find((message) => message.bot_id && message.text.includes('🎯 Goal') && message.text.includes('check the dependencies'))!;
    const card = () => h.botReplies('C6', goalRoot.ts).find((message) => message.text.startsWith('🛰'));
    await h.slack.waitFor(() => /1st in queue · ~\d+ s/.test(card()?.text ?? ''), { timeoutMs: 10_000 });

    // A person asks now: they go before the schedule, whose card moves to 2nd.
    const person = await h.slack.mention({ userId: 'U2', channelId: 'C6', text: `<@${h.slack.botUserId}> spock which tests are flaky?` });
    await h.slack.waitFor(() => /2nd in queue · ~\d+ s/.test(card()?.text ?? ''), { timeoutMs: 10_000 });
    expect(await tsuka('queue', 'U3', 'C6')).toMatch(/1st in queue · [^\n]*person · <@U2> · Spock[^\n]*\n2nd in queue · [^\n]*schedule · <@U1> · \/goal/);

    release();
    await h.slack.waitFor(() => h.botReplies('C6', goalRoot.ts).some((message) => message.text.includes('Goal completed')), { timeoutMs: 15_000 });
    await h.slack.waitFor(() => h.botReplies('C6', person.ts).some((message) => message.text.includes('Two tests are flaky.')));
    const served = h.model.requests.slice(before).map((request) => (callerOf(request.body as never) === 'plan' ? 'plan' : lastUserOf(request.body as never)));
    expect(served.slice(0, 3)).toEqual([expect.stringContaining('hold the GPU'), expect.stringContaining('which tests are flaky'), 'plan']);
  }, 40_000);
});
