/**
 * A Redis that comes back empty (restarted without persistence) under a running replica (issue 41):
 * a run waiting for an approval whose record vanished is told at once in its thread (not at the
 * timeout), the log and `/readyz` say "Redis came back empty", and the start says that this Redis
 * keeps nothing across its own restart. One app for the file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buttonsOf, startSlackHarness, type SlackHarness } from '../slack/slack-harness.js';
import { startRedisServer, type RedisServer } from '../../support/redis-server.js';

let redis: RedisServer;
let harness: SlackHarness;
beforeAll(async () => {
  redis = await startRedisServer();
  // A timeout far beyond the test's: only the vanished record can end the wait in time.
  harness = await startSlackHarness({ environment: { TSUKA_STORE_URL: redis.url, TSUKA_APPROVAL_TIMEOUT_S: '3600' } });
}, 60_000);
afterAll(async () => {
  await harness?.stop();
  await redis?.stop();
});

describe('Redis came back empty', () => {
  it('the start says this Redis keeps nothing across its own restart', () => {
    expect(harness.logs.join('')).toMatch(/Redis: this Redis keeps nothing across its own restart \(appendonly no, save off\)/);
  });

  // Redis is killed the moment the card shows, which may be before the app stored the card's reference
  // (and before the store's own connection is back when the emptiness is found): the wait must survive both.
  it('tells a pending approval’s thread at once, and says it in /readyz and the log', async () => {
    const { slack, model } = harness;
    model.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'notes/plan.md', content: '# Plan\n' } }] });
    model.enqueue((body) => {
      const messages = (body as { messages: { role: string; content: string }[] }).messages;
      return { text: `Tool said: ${messages.filter((m) => m.role === 'tool').at(-1)!.content}` };
    });
    const mention = await slack.mention({ userId: 'U1', channelId: 'C1', text: `<@${slack.botUserId}> geordi write the plan` });
    const asking = () => harness.botReplies('C1', mention.ts).find((message) => buttonsOf(message).some((button) => button.action_id === 'tsuka_approve'));
    await slack.waitFor(() => asking() !== undefined, { timeoutMs: 40_000 });
    const card = asking()!;

    // Restarted empty: killed, and started again on its port without persistence.
    await redis.stop();
    redis = await startRedisServer({ port: redis.port });

    await slack.waitFor(() => /record vanished: Redis came back empty/.test(slack.messages('C1').find((message) => message.ts === card.ts)?.text ?? ''), {
      timeoutMs: 40_000,
    });
    const settled = slack.messages('C1').find((message) => message.ts === card.ts)!;
    expect(buttonsOf(settled)).toHaveLength(0);
    expect(settled.text).toMatch(/Denied/);
    const ready = (await (await fetch(`http://127.0.0.1:${harness.app.http.port}/readyz`)).json()) as { redis?: string };
    expect(ready.redis).toMatch(/^Redis came back empty at /);
    expect(harness.logs.join('')).toMatch(/Redis came back empty at /);
  }, 60_000);
});
