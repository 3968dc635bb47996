/** /goal from a Slack slash command: the whole bot, the real Bolt, the Slack emulator and a scripted model server. */
import { afterEach, describe, expect, it } from 'vitest';
import type { ScriptedReplySpec } from '../../support/scripted-model-server.js';
import { callerOf } from '../../support/scripted-callers.js';
import { buttonsOf, startSlackHarness, type SlackHarness } from './slack-harness.js';

// A thread of many messages: the per-channel post pacing is raised (as in slack-workflows) so the test stays fast.
const FAST = {
  emulator: { rateLimits: { postMessageBurst: 10, postMessagePerChannelPerSecond: 20, updatePerMinute: 1200 } },
  rateLimits: { postBurst: 10, postsPerSecondPerChannel: 20, updatesPerMinute: 1200 },
};

let harness: SlackHarness | undefined;
afterEach(async () => {
  await harness?.stop();
  harness = undefined;
});

/** Answers each model call by who asks (planner, step n, review of step n): parallel calls may come in any order. */
function scriptGoal(h: SlackHarness, script: Record<string, ScriptedReplySpec[]>): void {
  const total = Object.values(script).reduce((sum, answers) => sum + answers.length, 0);
  for (let index = 0; index < total; index++)
    h.model.enqueue((body) => script[callerOf(body as never)]?.shift() ?? { text: `(nothing scripted for ${callerOf(body as never)})` });
}

describe('Slack /goal', () => {
  it('posts the root, the plan, each step under its identity, the merge, the reviews and the stats table in the thread', async () => {
    harness = await startSlackHarness(FAST);
    scriptGoal(harness, {
      plan: [
        {
          text: 'AGENT: @geordi — Draft notes.md\nPARALLEL:\nAGENT: @data — Document the notes\nAGENT: @worf — Audit the notes\nEND PARALLEL\nAGENT: @pike — Sign off the notes\nEND',
        },
      ],
      'step:1': [{ text: 'Drafted the notes.\nSTATUS: COMPLETED — notes drafted' }],
      'review:1': [{ text: 'Good enough.\nVOTE: APPROVE — clear' }],
      'step:2': [{ text: 'Documented.\nSTATUS: COMPLETED — documented' }],
      'step:3': [{ text: 'Audited.\nSTATUS: COMPLETED — audited' }],
      'review:2': [{ text: 'VOTE: APPROVE — fine' }],
      'review:3': [{ text: 'VOTE: APPROVE — fine' }],
      'step:4': [{ text: 'Signed off.\nSTATUS: COMPLETED — signed off' }],
    });
    const delivery = await harness.slack.deliverSlashCommand({ command: '/goal', text: 'write and check the release notes', userId: 'U1', channelId: 'C1' });
    expect(delivery.ackMs).toBeLessThan(3000);
    await harness.slack.waitFor(() => harness!.slack.messages('C1').some((message) => message.bot_id && message.text.startsWith('🎯')));
    const root = harness.slack.messages('C1').find((message) => message.bot_id && message.text.startsWith('🎯'))!;
    expect(root.text).toBe('🎯 Goal by <@U1>: write and check the release notes');
    await harness.slack.waitFor(() => harness!.botReplies('C1', root.ts).some((message) => message.text.includes('Goal completed')), { timeoutMs: 8000 });

    // The steps as a plan: one streamed message with a plan block, a task per member turn.
    const isPlan = (message: { taskDisplayMode?: string }) => message.taskDisplayMode === 'plan';
    await harness.slack.waitFor(() => harness!.botReplies('C1', root.ts).some((message) => isPlan(message) && message.stream === 'stopped'));
    const plan = harness.botReplies('C1', root.ts).find(isPlan)!;
    const chunks = plan.chunks as { type: string; id?: string; title?: string; status?: string }[];
    expect(chunks[0]).toEqual({ type: 'plan_update', title: expect.stringContaining('write and check the release notes') });
    const tasks = new Map<string, { title: string; statuses: string[] }>();
    for (const chunk of chunks.filter((entry) => entry.type === 'task_update'))
      tasks.set(chunk.id!, { title: chunk.title!, statuses: [...(tasks.get(chunk.id!)?.statuses ?? []), chunk.status!] });
    const titles = [...tasks.values()].map((task) => task.title);
    for (const [step, who] of [
      [1, 'Geordi'],
      [2, 'Data'],
      [3, 'Worf'],
      [4, 'Pike'],
    ] as const)
      expect(titles).toContainEqual(expect.stringMatching(new RegExp(`^step ${step}/4 · ${who}`)));
    for (const task of tasks.values()) expect(task.statuses.at(-1)).toBe('complete');
    expect([...tasks.values()].every((task) => task.statuses[0] === 'in_progress')).toBe(true);

    const replies = harness.botReplies('C1', root.ts).filter((message) => message.ts !== plan.ts);
    const card = replies.find((message) => message.text.startsWith('🛰'))!;
    expect(card.text).toContain('finished');
    expect(buttonsOf(card)).toHaveLength(0);
    const thread = replies.filter((message) => message !== card).map((message) => [message.username ?? 'bot', message.text.trim()] as const);
    expect(thread).toHaveLength(10);
    expect(thread[0]).toEqual([
      'bot',
      expect.stringMatching(
        /^📋 Plan \(4 steps\):\n1\. @geordi — Draft notes\.md\n⇉ in parallel:\n {4}2\. @data — Document the notes\n {4}3\. @worf — Audit the notes\n4\. @pike — Sign off the notes$/,
      ),
    ]);
    expect(thread[1]).toEqual(['Geordi', expect.stringContaining('Drafted the notes.')]);
    expect(thread[1]![1]).toContain('step done — step 1: notes drafted');
    expect(thread[2]).toEqual(['Pike', expect.stringContaining('step 1 accepted — clear')]);
    // The parallel steps start together; either may post first.
    expect([thread[3]![0], thread[4]![0]].sort()).toEqual(['Data', 'Worf']);
    expect(thread[5]).toEqual(['bot', '🔀 Merge: the parallel steps changed no file.']);
    expect(thread[6]).toEqual(['Pike', expect.stringContaining('step 2 accepted')]);
    expect(thread[7]).toEqual(['Pike', expect.stringContaining('step 3 accepted')]);
    // The plan's supervisor reviews every step but its own.
    expect(thread[8]).toEqual(['Pike', expect.stringContaining('Signed off.')]);
    const final = thread[9]!;
    expect(final[0]).toBe('bot');
    expect(final[1]).toMatch(/^✅ Goal completed\.\n4 step\(s\) done · 1 merge\(s\), 0 conflict\(s\)\n```/);
    expect(final[1]).toMatch(/agent\s+output tokens\s+peak context\s+total tokens\s+time\s+tokens\/s/);
    for (const agent of ['geordi', 'data', 'worf', 'pike']) expect(final[1]).toMatch(new RegExp(`\\n${agent}\\s+\\d`));
    expect(replies.find((message) => message.username === 'Geordi')!.icon_emoji).toBe(':wrench:');
    expect(harness.model.requests).toHaveLength(8);
  });
});
