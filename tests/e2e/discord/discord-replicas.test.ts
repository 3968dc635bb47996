/**
 * Two replicas on one Redis against one Discord: only one holds the gateway (two sessions on one
 * shard would both receive every message), the other posts over REST; when the holder stops, the
 * other takes the gateway over and answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDiscordHarness, type DiscordHarness } from './discord-harness.js';
import { startRedisServer, type RedisServer } from '../../support/redis-server.js';

let redis: RedisServer;
let first: DiscordHarness;
let second: DiscordHarness;

const replicaEnvironment = () => ({
  TSUKA_STORE_URL: redis.url,
  TSUKA_REPLICA_HEARTBEAT_MS: '200',
  TSUKA_REPLICA_LEASE_MS: '1000',
});

beforeAll(async () => {
  redis = await startRedisServer();
  first = await startDiscordHarness({ environment: replicaEnvironment() });
  second = await startDiscordHarness({ environment: replicaEnvironment(), reuse: first.discord });
}, 60_000);

afterAll(async () => {
  await second?.stop();
  await first?.stop();
  await redis?.stop();
});

const identified = () => first.discord.gatewayLog.filter((record) => record.kind === 'identify').length;
const closed = () => first.discord.gatewayLog.filter((record) => record.kind === 'close').length;

describe('Discord with two replicas', () => {
  it('opens one gateway session, answers each mention once, and hands the gateway over when its holder stops', async () => {
    await first.discord.waitFor(() => identified() >= 1 || undefined, { timeoutMs: 10_000 });
    // Give the second replica several leadership checks: it must stay on standby.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(identified()).toBe(1);

    first.model.enqueue({ text: 'One answer.' });
    second.model.enqueue({ text: 'One answer.' });
    const mention = first.mention({ content: 'geordi hello' });
    const reply = await first.discord.waitFor(
      () => first.discord.threads().find((thread) => first.botReplies(thread.id).some((message) => message.content.includes('One answer.'))),
      { timeoutMs: 15_000 },
    );
    expect(first.botReplies(reply.id).filter((message) => message.content.includes('One answer.'))).toHaveLength(1);
    expect(first.model.requests.length + second.model.requests.length).toBe(1);
    expect(mention.id).toBeTruthy();

    const holder = first.model.requests.length === 1 ? first : second;
    const other = holder === first ? second : first;
    await holder.stopApp();
    await first.discord.waitFor(() => (identified() >= 2 ? true : undefined), { timeoutMs: 15_000 });
    expect(closed()).toBeGreaterThanOrEqual(1);
    // The replica left answers from its own model server: what it had queued for the first mention.
    other.mention({ content: 'geordi still there?' });
    await first.discord.waitFor(
      () =>
        first.discord
          .threads()
          .find((thread) => thread.name.includes('still there') && first.botReplies(thread.id).some((message) => message.content.includes('One answer.'))),
      { timeoutMs: 15_000 },
    );
    expect(other.model.requests.length).toBe(1);
  }, 60_000);
});
