import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { App, LogLevel } from '@slack/bolt';
import { DEFAULT_SLACK_SCOPES, startSlackEmulator, type SlackEmulator } from './slack-emulator.js';

// Each test posts in its own channel: chat.postMessage is rate limited per channel (burst of 4).
const CHANNEL = 'C0GENERAL';
const USER = 'U0ANA';

let emulator: SlackEmulator;
let app: App;

beforeAll(async () => {
  emulator = await startSlackEmulator();
  app = new App({
    token: emulator.botToken,
    appToken: emulator.appToken,
    socketMode: true,
    clientOptions: { slackApiUrl: emulator.apiUrl, retryConfig: { retries: 0 } },
    logLevel: LogLevel.ERROR,
  });
  app.event('app_mention', async ({ event, client }) => {
    await client.chat.postMessage({
      channel: event.channel,
      thread_ts: event.thread_ts ?? event.ts,
      text: `On it: ${event.text.replace(/^<@[A-Z0-9]+>\s*/, '')}`,
      username: 'Geordi',
      icon_emoji: ':wrench:',
    });
  });
  app.message(async ({ message, client }) => {
    if (message.subtype !== undefined || !('thread_ts' in message) || !message.thread_ts) return;
    await client.chat.postMessage({ channel: message.channel, thread_ts: message.thread_ts, text: `Follow-up: ${message.text ?? ''}` });
  });
  app.command('/tsuka', async ({ ack, respond, command }) => {
    await ack(`Working on "${command.text}"`);
    await respond({ text: 'Done.', response_type: 'ephemeral' });
  });
  app.action('approve', async ({ ack, body, client }) => {
    await ack();
    if (body.type !== 'block_actions' || !body.message || !body.channel) return;
    await client.chat.update({ channel: body.channel.id, ts: body.message.ts, text: `✅ Approved by <@${body.user.id}>`, blocks: [] });
  });
  await app.start();
  await emulator.waitForConnection();
});

afterAll(async () => {
  await app?.stop();
  await emulator?.close();
});

describe('Slack emulator with the real Bolt (Socket Mode)', () => {
  it('greets the socket with hello and serves auth.test with the bot ids and scopes', async () => {
    expect(emulator.connections).toBe(1);
    const auth = await app.client.auth.test();
    expect(auth).toMatchObject({ ok: true, user_id: 'U0BOT', bot_id: 'B0BOT', team_id: 'T0TEAM' });
    expect(auth.response_metadata?.scopes).toContain('chat:write.customize');
    expect(emulator.calls.some((call) => call.method === 'apps.connections.open')).toBe(true);
  });

  it('delivers a mention and records the in-thread reply under the character identity and the ack time', async () => {
    const delivery = await emulator.mention({ userId: USER, channelId: CHANNEL, text: 'geordi why does npm test fail?' });
    expect(delivery.event).toMatchObject({ type: 'app_mention', text: '<@U0BOT> geordi why does npm test fail?', channel: CHANNEL, user: USER });
    expect(delivery.eventId).toMatch(/^Ev[A-Z0-9]+$/);
    expect(delivery.ackMs).toBeGreaterThanOrEqual(0);
    expect(delivery.ackMs).toBeLessThan(3_000);

    await emulator.waitFor((e) => e.thread(CHANNEL, delivery.ts).length === 2, { description: 'the reply in the thread' });
    const [parent, reply] = emulator.thread(CHANNEL, delivery.ts);
    expect(parent).toMatchObject({ user: USER, ts: delivery.ts });
    expect(reply).toMatchObject({
      thread_ts: delivery.ts,
      text: 'On it: geordi why does npm test fail?',
      username: 'Geordi',
      icon_emoji: ':wrench:',
      user: 'U0BOT',
      bot_id: 'B0BOT',
      edits: 0,
    });
    expect(Number(reply?.ts)).toBeGreaterThan(Number(delivery.ts));
    const envelope = emulator.envelopes.find((e) => e.envelope.envelope_id === delivery.envelopeId);
    expect(envelope?.envelope).toMatchObject({ type: 'events_api', retry_attempt: 0, payload: { type: 'event_callback', event_id: delivery.eventId } });
    expect(envelope?.acks).toHaveLength(1);
  });

  it('delivers a thread follow-up as a message event and keeps user and bot messages in thread order', async () => {
    const channel = 'C0THREADS';
    const mention = await emulator.mention({ userId: USER, channelId: channel, text: 'start' });
    await emulator.waitFor((e) => e.thread(channel, mention.ts).length === 2);
    const followUp = await emulator.threadMessage({ userId: USER, channelId: channel, threadTs: mention.ts, text: 'and the tests?' });
    expect(followUp.event).toMatchObject({ type: 'message', channel_type: 'channel', thread_ts: mention.ts, parent_user_id: USER, text: 'and the tests?' });
    await emulator.waitFor((e) => e.thread(channel, mention.ts).length === 4);
    expect(emulator.thread(channel, mention.ts).map((m) => [m.user, m.text])).toEqual([
      [USER, '<@U0BOT> start'],
      ['U0BOT', 'On it: start'],
      [USER, 'and the tests?'],
      ['U0BOT', 'Follow-up: and the tests?'],
    ]);
  });

  it('acks a slash command with the reply text and records the response_url post', async () => {
    const delivery = await emulator.deliverSlashCommand({ command: '/tsuka', text: 'status', userId: USER, channelId: CHANNEL });
    expect(delivery.payload).toMatchObject({ command: '/tsuka', text: 'status', user_id: USER, channel_id: CHANNEL, team_id: 'T0TEAM' });
    expect(delivery.ackPayload).toEqual({ text: 'Working on "status"' });
    const id = delivery.responseUrl.split('/').at(-1);
    await emulator.waitFor((e) => e.responses.some((r) => r.id === id));
    expect(emulator.responses.find((r) => r.id === id)?.body).toMatchObject({ text: 'Done.', response_type: 'ephemeral' });
  });

  it('acks a button click whose payload points at the message, and records the edit that removes the buttons', async () => {
    const posted = await app.client.chat.postMessage({
      channel: 'C0APPROVALS',
      text: 'Run `npm test`?',
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: 'Run `npm test`?' } },
        {
          type: 'actions',
          block_id: 'approval',
          elements: [{ type: 'button', action_id: 'approve', value: 'call-1', text: { type: 'plain_text', text: 'Approve' }, style: 'primary' }],
        },
      ],
    });
    const ts = String(posted.ts);
    const click = await emulator.deliverBlockAction({ userId: USER, channelId: 'C0APPROVALS', messageTs: ts, actionId: 'approve', value: 'call-1' });
    expect(click.ackMs).toBeGreaterThanOrEqual(0);
    expect(click.payload).toMatchObject({
      type: 'block_actions',
      container: { type: 'message', message_ts: ts, channel_id: 'C0APPROVALS' },
      message: { ts, bot_id: 'B0BOT' },
      actions: [{ action_id: 'approve', block_id: 'approval', value: 'call-1', text: { text: 'Approve' }, action_ts: click.actionTs }],
    });
    await emulator.waitFor((e) => e.messages('C0APPROVALS').find((m) => m.ts === ts)?.edits === 1);
    const edited = emulator.messages('C0APPROVALS').find((m) => m.ts === ts);
    expect(edited?.history).toEqual(['Run `npm test`?', `✅ Approved by <@${USER}>`]);
    expect(edited?.blocks).toBeUndefined();
  });

  it('records a file uploaded with filesUploadV2 into a thread', async () => {
    const root = await app.client.chat.postMessage({ channel: 'C0FILES', text: 'Export' });
    await app.client.filesUploadV2({
      channel_id: 'C0FILES',
      thread_ts: String(root.ts),
      filename: 'run-42.md',
      title: 'Run 42 transcript',
      content: '# Run 42\nAll green.',
    });
    expect(emulator.files.at(-1)).toMatchObject({
      name: 'run-42.md',
      title: 'Run 42 transcript',
      content: '# Run 42\nAll green.',
      channel: 'C0FILES',
      thread_ts: String(root.ts),
    });
  });

  it('refuses a customized identity with missing_scope once chat:write.customize is removed', async () => {
    emulator.setScopes(['chat:write', 'app_mentions:read', 'commands']);
    try {
      await expect(app.client.chat.postMessage({ channel: 'C0SCOPES', text: 'hi', username: 'Worf', icon_emoji: ':shield:' })).rejects.toMatchObject({
        data: { ok: false, error: 'missing_scope', needed: 'chat:write.customize' },
      });
      const plain = await app.client.chat.postMessage({ channel: 'C0SCOPES', text: '*Worf*: hi' });
      expect(plain.ok).toBe(true);
    } finally {
      emulator.setScopes(DEFAULT_SLACK_SCOPES);
    }
  });

  it('sends disconnect; Bolt reconnects through apps.connections.open and keeps receiving events', async () => {
    const before = emulator.connections;
    const opens = emulator.calls.filter((call) => call.method === 'apps.connections.open').length;
    emulator.sendDisconnect('refresh_requested');
    expect(emulator.openConnections).toBe(0);
    // Bolt waits its clientPingTimeout (5 s) before reconnecting.
    await emulator.waitForConnection({ count: before + 1, timeoutMs: 15_000 });
    expect(emulator.calls.filter((call) => call.method === 'apps.connections.open').length).toBe(opens + 1);
    const delivery = await emulator.mention({ userId: USER, channelId: 'C0RECONNECT', text: 'still there?' });
    await emulator.waitFor((e) => e.thread('C0RECONNECT', delivery.ts).length === 2);
  }, 20_000);
});
