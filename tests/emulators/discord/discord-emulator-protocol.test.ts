import { once } from 'node:events';
import { ChannelType, Client, Events, GatewayIntentBits, PermissionFlagsBits, type Message } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startClientFixture, type ClientFixture } from './discord-client-fixture.js';
import { DEFAULT_USER, startDiscordEmulator, type DiscordEmulator } from './discord-emulator.js';

/** Connects a raw gateway socket, waits for HELLO, sends one frame, resolves with the close code. */
async function identifyAndAwaitClose(emulator: DiscordEmulator, identify: Record<string, unknown>): Promise<number> {
  const socket = new WebSocket(`${emulator.gatewayUrl}?v=10&encoding=json`);
  const [hello] = (await once(socket, 'message')) as [Buffer];
  expect(JSON.parse(hello.toString())).toEqual({ op: 10, d: { heartbeat_interval: 41250 } });
  const closed = once(socket, 'close') as Promise<[number, Buffer]>;
  socket.send(JSON.stringify({ op: 2, d: identify }));
  const [code] = await closed;
  return code;
}

interface Frame {
  op: number;
  t?: string;
  s?: number;
  d: unknown;
}

/** Collects a socket's frames; the returned function resolves with the first (past or future) frame matching. */
function readFrames(socket: WebSocket): (predicate: (frame: Frame) => boolean) => Promise<Frame> {
  const frames: Frame[] = [];
  const waiters: { predicate: (frame: Frame) => boolean; resolve: (frame: Frame) => void }[] = [];
  socket.on('message', (raw: Buffer) => {
    const frame = JSON.parse(raw.toString()) as Frame;
    frames.push(frame);
    for (const waiter of [...waiters]) {
      if (waiter.predicate(frame)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(frame);
      }
    }
  });
  return (predicate) =>
    new Promise((resolve) => {
      const found = frames.find(predicate);
      if (found) resolve(found);
      else waiters.push({ predicate, resolve });
    });
}

describe('discord emulator: protocol rules', () => {
  let emulator: DiscordEmulator | undefined;
  let fixture: ClientFixture | undefined;
  afterEach(async () => {
    await fixture?.stop();
    await emulator?.close();
    fixture = undefined;
    emulator = undefined;
  });

  it('answers unknown routes with 404, wrong methods with 405, and always sends rate-limit headers', async () => {
    emulator = await startDiscordEmulator();
    const response = await fetch(`${emulator.apiUrl}/v10/nowhere/at/all`, { headers: { authorization: `Bot ${emulator.botToken}` } });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ message: '404: Not Found', code: 0 });
    const wrongMethod = await fetch(`${emulator.apiUrl}/v10/gateway/bot`, { method: 'DELETE', headers: { authorization: `Bot ${emulator.botToken}` } });
    expect(wrongMethod.status).toBe(405);
    for (const header of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'x-ratelimit-reset-after', 'x-ratelimit-bucket']) {
      expect(response.headers.get(header), header).not.toBeNull();
    }
  });

  it('requires the bot token on bot routes but not on interaction and webhook-token routes', async () => {
    emulator = await startDiscordEmulator();
    const anonymous = await fetch(`${emulator.apiUrl}/v10/users/@me`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ message: '401: Unauthorized', code: 0 });
    const unknownInteraction = await fetch(`${emulator.apiUrl}/v10/interactions/1/nope/callback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 5 }),
    });
    expect(unknownInteraction.status).toBe(404);
    expect(await unknownInteraction.json()).toMatchObject({ code: 10062 });
    const client = new Client({ intents: [GatewayIntentBits.Guilds], rest: { api: emulator.apiUrl } });
    await expect(client.login('not-the-token')).rejects.toMatchObject({ code: 'TokenInvalid' });
    await client.destroy();
  });

  it('answers a 204 without any content-type header', async () => {
    emulator = await startDiscordEmulator();
    const auth = { authorization: `Bot ${emulator.botToken}`, 'content-type': 'application/json' };
    const created = await fetch(`${emulator.apiUrl}/v10/channels/${emulator.defaultChannelId}/messages`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ content: 'short-lived' }),
    });
    const { id } = (await created.json()) as { id: string };
    const deleted = await fetch(`${emulator.apiUrl}/v10/channels/${emulator.defaultChannelId}/messages/${id}`, { method: 'DELETE', headers: auth });
    expect(deleted.status).toBe(204);
    expect(deleted.headers.get('content-type')).toBeNull();
    expect(await deleted.text()).toBe('');
    expect(emulator.messages()[0]?.deleted).toBe(true);
  });

  it('closes the gateway with 4004 on a wrong token and 4014 on a MESSAGE_CONTENT intent that is not allowed', async () => {
    emulator = await startDiscordEmulator({ messageContentIntentAllowed: false });
    const base = { properties: { os: 'linux', browser: 'test', device: 'test' } };
    expect(await identifyAndAwaitClose(emulator, { ...base, token: 'wrong', intents: 513 })).toBe(4004);
    const withContent = GatewayIntentBits.Guilds | GatewayIntentBits.GuildMessages | GatewayIntentBits.MessageContent;
    expect(await identifyAndAwaitClose(emulator, { ...base, token: emulator.botToken, intents: withContent })).toBe(4014);
    expect(emulator.gatewayLog.filter((entry) => entry.kind === 'identify')).toHaveLength(0);
  });

  it('speaks the gateway protocol: READY then GUILD_CREATE with sequence numbers, heartbeat ACK, custom dispatches, unknown RESUME', async () => {
    emulator = await startDiscordEmulator();
    const current = emulator;
    const socket = new WebSocket(`${current.gatewayUrl}?v=10&encoding=json`);
    const waitForFrame = readFrames(socket);
    await waitForFrame((frame) => frame.op === 10);
    socket.send(JSON.stringify({ op: 2, d: { token: current.botToken, intents: 513, properties: {} } }));
    const guildCreate = await waitForFrame((frame) => frame.t === 'GUILD_CREATE');
    const ready = await waitForFrame((frame) => frame.t === 'READY');
    expect(ready).toMatchObject({
      op: 0,
      s: 1,
      d: { v: 10, guilds: [{ id: current.guildId, unavailable: true }], application: { id: current.applicationId } },
    });
    expect(guildCreate).toMatchObject({ op: 0, s: 2, d: { id: current.guildId, channels: [{ id: current.defaultChannelId, name: 'general' }] } });
    socket.send(JSON.stringify({ op: 1, d: 2 }));
    await waitForFrame((frame) => frame.op === 11);
    current.dispatch('TYPING_START', { channel_id: current.defaultChannelId, user_id: DEFAULT_USER.id });
    expect(await waitForFrame((frame) => frame.t === 'TYPING_START')).toMatchObject({ s: 3 });
    socket.send(JSON.stringify({ op: 6, d: { token: current.botToken, session_id: 'unknown', seq: 3 } }));
    expect(await waitForFrame((frame) => frame.op === 9)).toEqual({ op: 9, d: false });
    const closed = once(socket, 'close');
    socket.close(1000);
    await closed;
  });

  it("answers a message over the per-channel limit with a 429 shaped like Discord's", async () => {
    emulator = await startDiscordEmulator({ rateLimits: { messagesPerChannelPer5s: 1 } });
    const send = () =>
      fetch(`${emulator?.apiUrl}/v10/channels/${emulator?.defaultChannelId}/messages`, {
        method: 'POST',
        headers: { authorization: `Bot ${emulator?.botToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ content: 'hello' }),
      });
    expect((await send()).status).toBe(200);
    const limited = await send();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('x-ratelimit-scope')).toBe('shared');
    const retryAfterHeader = Number(limited.headers.get('retry-after'));
    const body = (await limited.json()) as { message: string; retry_after: number; global: boolean };
    expect(body).toMatchObject({ message: 'You are being rate limited.', global: false });
    expect(body.retry_after).toBeGreaterThan(0);
    expect(body.retry_after).toBeLessThanOrEqual(5);
    expect(retryAfterHeader).toBe(Math.ceil(body.retry_after));
    expect(emulator.rateLimited).toHaveLength(1);
    expect(emulator.messages()).toHaveLength(1);
  });

  it('empties message content for a client without MESSAGE_CONTENT unless the message mentions the bot', async () => {
    fixture = await startClientFixture({ messageContentIntentAllowed: false }, [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages]);
    const { client, emulator: current } = fixture;
    const plain = once(client, Events.MessageCreate) as Promise<[Message]>;
    current.postUserMessage({ channelId: current.defaultChannelId, userId: DEFAULT_USER.id, content: 'plain words' });
    expect((await plain)[0].content).toBe('');
    const mention = once(client, Events.MessageCreate) as Promise<[Message]>;
    current.postUserMessage({ channelId: current.defaultChannelId, userId: DEFAULT_USER.id, content: 'help me', mentionsBot: true });
    expect((await mention)[0].content).toBe(`<@${current.botUserId}> help me`);
    expect(current.messages().map((message) => message.content)).toEqual(['plain words', `<@${current.botUserId}> help me`]);
  });

  it('refuses webhooks with 50013 when Manage Webhooks is not granted, and the guild roles say so', async () => {
    fixture = await startClientFixture({ permissions: { manageWebhooks: false } });
    const channel = fixture.client.channels.cache.get(fixture.emulator.defaultChannelId);
    if (channel?.type !== ChannelType.GuildText) throw new Error('general channel missing from the cache');
    expect(channel.permissionsFor(fixture.client.user)?.has(PermissionFlagsBits.ManageWebhooks)).toBe(false);
    expect(channel.permissionsFor(fixture.client.user)?.has(PermissionFlagsBits.SendMessages)).toBe(true);
    await expect(channel.createWebhook({ name: 'characters' })).rejects.toMatchObject({ code: 50013, status: 403 });
    await expect(channel.fetchWebhooks()).rejects.toMatchObject({ code: 50013 });
  });

  it('refuses a slash command that was never registered, as Discord would never deliver it', async () => {
    emulator = await startDiscordEmulator();
    await expect(emulator.invokeSlashCommand({ name: 'goal', userId: DEFAULT_USER.id, channelId: emulator.defaultChannelId })).rejects.toThrow(
      /not a registered command/,
    );
  });

  it('waitFor resolves on a recorded change and times out naming the last calls', async () => {
    emulator = await startDiscordEmulator();
    const current = emulator;
    const waiting = current.waitFor(() => current.messages().find((message) => message.content === 'ping'));
    current.postUserMessage({ channelId: current.defaultChannelId, userId: DEFAULT_USER.id, content: 'ping' });
    expect((await waiting).authorId).toBe(DEFAULT_USER.id);
    await fetch(`${current.apiUrl}/v10/gateway`);
    await expect(current.waitFor(() => false, { timeoutMs: 50 })).rejects.toThrow(/timed out after 50 ms.*\n.*GET \/gateway → 200/);
  });
});
