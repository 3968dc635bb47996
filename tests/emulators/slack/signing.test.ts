import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { App, LogLevel } from '@slack/bolt';
import { buildAppMentionEvent, buildEventCallback, newSlackId } from './payloads.js';
import { postSignedEvent, postSignedForm } from './signing.js';
import { startSlackEmulator, type SlackEmulator } from './slack-emulator.js';

const SECRET = 'emulator-signing-secret';
let emulator: SlackEmulator;
let app: App;
let eventsUrl: string;
const retries: (number | undefined)[] = [];

beforeAll(async () => {
  emulator = await startSlackEmulator();
  app = new App({
    token: emulator.botToken,
    signingSecret: SECRET,
    clientOptions: { slackApiUrl: emulator.apiUrl, retryConfig: { retries: 0 } },
    logLevel: LogLevel.ERROR,
  });
  app.event('app_mention', async ({ event, client, context }) => {
    retries.push(context.retryNum);
    await client.chat.postMessage({ channel: event.channel, thread_ts: event.ts, text: 'heard you' });
  });
  app.command('/tsuka', async ({ ack, command }) => {
    await ack(`status for ${command.user_id}`);
  });
  const server = (await app.start(0)) as Server;
  eventsUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
});

afterAll(async () => {
  await app?.stop();
  await emulator?.close();
});

function mentionCallback(channel: string) {
  const ts = `${Math.floor(Date.now() / 1000)}.000100`;
  const event = buildAppMentionEvent({ userId: 'U0ANA', channelId: channel, text: '<@U0BOT> hello', ts, teamId: emulator.teamId });
  return { ts, body: buildEventCallback(event, emulator.identity, { eventId: newSlackId('Ev'), eventTime: Math.floor(Date.now() / 1000) }) };
}

describe('HTTP mode: signed deliveries to a real Bolt HTTPReceiver', () => {
  it('delivers a signed event that Bolt verifies and handles', async () => {
    const { ts, body } = mentionCallback('C0HTTP');
    const result = await postSignedEvent(eventsUrl, body, SECRET);
    expect(result.status).toBe(200);
    await emulator.waitFor((e) => e.botMessages('C0HTTP').length === 1);
    expect(emulator.botMessages('C0HTTP')[0]).toMatchObject({ thread_ts: ts, text: 'heard you' });
  });

  it('carries X-Slack-Retry-Num to the handler on re-delivery', async () => {
    const { body } = mentionCallback('C0RETRY');
    expect((await postSignedEvent(eventsUrl, body, SECRET, { retryNum: 1, retryReason: 'http_timeout' })).status).toBe(200);
    await emulator.waitFor((e) => e.botMessages('C0RETRY').length === 1);
    expect(retries.at(-1)).toBe(1);
  });

  it('is refused by Bolt when signed with another secret or with a timestamp older than 5 minutes', async () => {
    const { body } = mentionCallback('C0REFUSED');
    expect((await postSignedEvent(eventsUrl, body, SECRET, { signWith: 'not-the-secret' })).status).toBe(401);
    expect((await postSignedEvent(eventsUrl, body, SECRET, { timestamp: Math.floor(Date.now() / 1000) - 600 })).status).toBe(401);
    expect(emulator.botMessages('C0REFUSED')).toHaveLength(0);
  });

  it('delivers a signed slash command form whose ack text comes back in the HTTP response', async () => {
    const result = await postSignedForm(
      eventsUrl,
      {
        command: '/tsuka',
        text: 'status',
        user_id: 'U0ANA',
        channel_id: 'C0HTTP',
        team_id: emulator.teamId,
        response_url: `${emulator.baseUrl}/response/x`,
        trigger_id: '1.2.3',
      },
      SECRET,
    );
    expect(result.status).toBe(200);
    expect(result.body).toContain('status for U0ANA');
  });
});
