/**
 * Issue 41 on the Slack emulator: a schedule in a private channel whose owner is removed from the
 * channel does not fire "by @owner" again — the firing asks conversations.members at that moment,
 * pauses, and tells the owner in a direct message; `every 1s` is refused under the floor.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScheduleStore } from '../../../src/core/schedules/schedule-store.js';
import { startSlackHarness, type SlackHarness } from './slack-harness.js';

let h: SlackHarness;
beforeAll(async () => {
  // A 2-second floor keeps the test short; the default (60 s) is checked in tests/unit/schedules/schedule-rights.test.ts.
  h = await startSlackHarness({ environment: { TSUKA_SCHEDULE_MIN_INTERVAL_S: '2' } });
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

const rootsIn = (channel: string) => h.slack.messages(channel).filter((message) => message.bot_id && message.text.startsWith('⏰ Scheduled'));
const answered = (channel: string) => rootsIn(channel).filter((root) => h.botReplies(channel, root.ts).some((reply) => reply.username === 'Geordi'));

describe('Slack schedules and their owner’s rights', () => {
  it('refuses `every 1s` with the floor in its message', async () => {
    expect(await tsuka('schedule every 1s @geordi ping', 'U1', 'C1')).toContain(
      'A schedule may run at most once every 2 seconds (TSUKA_SCHEDULE_MIN_INTERVAL_S); "every 1s" would run every second.',
    );
    expect(await createScheduleStore(h.app.engine.store).list()).toEqual([]);
  });

  it('pauses a private channel’s schedule once its owner was removed, tells them by DM, and never fires it by them again', async () => {
    const bot = h.slack.botUserId;
    h.slack.defineChannel({ id: 'G_OPS', name: 'ops-private', isPrivate: true, members: [bot, 'U1', 'U2'] });
    const made = await tsuka('schedule every 2s @geordi report the disk usage', 'U1', 'G_OPS');
    const id = /`(sch-[0-9a-f]{6})`/.exec(made)?.[1];
    expect(id, made).toBeDefined();
    await h.slack.waitFor(() => answered('G_OPS').length >= 1, { timeoutMs: 15_000 });

    // U1 is removed from the private channel; a schedule of theirs elsewhere shows the runner keeps going.
    h.slack.defineChannel({ id: 'G_OPS', members: [bot, 'U2'] });
    const firedBefore = rootsIn('G_OPS').length;
    await h.slack.waitFor(
      () => {
        const dm = h.slack.directChannelOf('U1');
        return dm !== undefined && h.slack.messages(dm).some((message) => message.text.includes(`Your schedule \`${id}\``));
      },
      { timeoutMs: 15_000 },
    );
    const dm = h.slack.directChannelOf('U1')!;
    const told = h.slack.messages(dm).find((message) => message.text.includes(`Your schedule \`${id}\``))!;
    expect(told.text).toContain('is paused and will not run: you are no longer a member of that channel');
    expect((await createScheduleStore(h.app.engine.store).get(id!))?.paused?.reason).toBe('you are no longer a member of that channel');

    // Two firings of another schedule (in a channel U1 is still in) pass: none of G_OPS's in the meantime.
    const other = await tsuka('schedule every 2s @geordi ping the build', 'U1', 'C1');
    expect(other).toContain('Scheduled');
    await h.slack.waitFor(() => answered('C1').length >= 2, { timeoutMs: 20_000 });
    // A firing that had already started when U1 was removed may have posted; nothing after the pause.
    expect(rootsIn('G_OPS').length).toBeLessThanOrEqual(firedBefore + 1);
    const afterPause = rootsIn('G_OPS').filter((root) => Number(root.ts) > Number(told.ts));
    expect(afterPause).toEqual([]);
    expect(await tsuka('schedules', 'U2', 'G_OPS')).toContain('⏸ paused: you are no longer a member of that channel');

    for (const schedule of await createScheduleStore(h.app.engine.store).list()) await createScheduleStore(h.app.engine.store).remove(schedule.id);
  }, 60_000);
});
