/**
 * Issue 35 (b), in the default set-up (`default-slack.ts`): a schedule made in a PRIVATE channel
 * fires there — its root and the character's answer are posted in that channel and nowhere else,
 * not in the public channel the same person also talks in.
 *
 * The default floor between firings (TSUKA_SCHEDULE_MIN_INTERVAL_S, 60 s) is kept, so the schedule
 * is `every 1h`; instead of waiting an hour, the test moves the schedule's next slot to now in the
 * store, as the hour passing would (the runner reads the store on every tick).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createScheduleStore } from '../../../src/core/schedules/schedule-store.js';
import type { SlackHarness } from '../slack/slack-harness.js';
import { expectDefaultSandbox, startDefaultSlackHarness } from './default-slack.js';

let h: SlackHarness;
beforeAll(async () => {
  h = await startDefaultSlackHarness();
}, 30_000);
afterAll(async () => {
  await h?.stop();
});

async function tsuka(text: string, userId: string, channelId: string): Promise<string> {
  const before = h.slack.responses.length;
  await h.slack.deliverSlashCommand({ command: '/tsuka', text, userId, channelId });
  await h.slack.waitFor(() => h.slack.responses.length > before);
  return String((h.slack.responses.at(-1)!.body as { text?: string }).text ?? '');
}

describe('default set-up: a schedule in a private channel', () => {
  it('fires in that private channel only, as its owner, and is listed only there', async () => {
    expectDefaultSandbox(h);
    const { slack, model } = h;
    slack.defineChannel({ id: 'G_OPS', name: 'ops-private', isPrivate: true, members: [slack.botUserId, 'U1', 'U2'] });
    // The owner talks to the bot in a public channel too, before and after making the schedule.
    model.enqueue({ text: 'Public answer.' });
    const publicMention = await slack.mention({ userId: 'U1', channelId: 'C1', text: `<@${slack.botUserId}> geordi hello` });
    await slack.waitFor(() => h.botReplies('C1', publicMention.ts).some((message) => message.text.includes('Public answer.')), { timeoutMs: 20_000 });
    const publicBefore = slack.botMessages('C1').length;

    const made = await tsuka('schedule every 1h @geordi report the disk usage', 'U1', 'G_OPS');
    const id = /`(sch-[0-9a-f]{6})`/.exec(made)?.[1];
    expect(id, made).toBeDefined();
    expect(await tsuka('schedules', 'U1', 'C1')).toContain('No schedules in this channel');
    expect(await tsuka('schedules', 'U2', 'G_OPS')).toContain(id);

    // The hour passes.
    const schedules = createScheduleStore(h.app.engine.store);
    model.enqueue({ text: 'Disk usage is 42%.' });
    await schedules.update(id!, (schedule) => ({ ...schedule, nextAt: Date.now() }));
    const roots = () => slack.botMessages('G_OPS').filter((message) => message.text.startsWith('⏰ Scheduled'));
    await slack.waitFor(() => roots().some((root) => h.botReplies('G_OPS', root.ts).some((reply) => reply.text.includes('Disk usage is 42%.'))), {
      timeoutMs: 20_000,
    });
    await vi.waitFor(async () => expect((await h.app.engine.runs.list()).filter((run) => run.status === 'running')).toEqual([]), {
      timeout: 20_000,
      interval: 50,
    });

    expect(roots()).toHaveLength(1);
    expect(roots()[0]!.text).toContain(`⏰ Scheduled (\`${id}\`, every 1h) by <@U1>: @geordi report the disk usage`);
    const answer = h.botReplies('G_OPS', roots()[0]!.ts).find((reply) => reply.text.includes('Disk usage is 42%.'))!;
    expect(answer.username).toBe('Geordi');
    // Nothing of the firing anywhere else: every bot message is in G_OPS but the public one before.
    expect(slack.botMessages('C1')).toHaveLength(publicBefore);
    const elsewhere = slack.botMessages().filter((message) => message.channel !== 'G_OPS' && message.channel !== 'C1');
    expect(elsewhere).toEqual([]);
    const posts = slack.calls.filter((call) => /^chat\.(postMessage|startStream|appendStream|stopStream|update)$/.test(call.method));
    const firingPosts = posts.filter((call) => call.body.channel !== 'C1');
    expect(firingPosts.length).toBeGreaterThan(0);
    expect(firingPosts.every((call) => call.body.channel === 'G_OPS')).toBe(true);
    // The model was asked once for the firing, with the schedule's text.
    expect(JSON.stringify(model.requests.at(-1)!.body)).toContain('report the disk usage');
    const stored = await schedules.get(id!);
    expect(stored?.runs).toBe(1);
    expect(stored!.nextAt - Date.now()).toBeGreaterThan(59 * 60_000);
  }, 60_000);
});
