/** /tsuka on Slack, the identity fallback without chat:write.customize, and HTTP mode signatures. */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buttonsOf, useSlackHarness, type SlackHarness } from './slack-harness.js';

// One app for the tests of the default settings (DEPLOY_TOKEN set, for the masking test); each test has a channel of its own.
const shared = useSlackHarness({ environment: { DEPLOY_TOKEN: 'tok-abcdefghijklmnop' } });

const responseTexts = (h: SlackHarness) => h.slack.responses.map((response) => String((response.body as { text?: string }).text ?? ''));

async function tsuka(h: SlackHarness, channel: string, text: string, userId = 'U1'): Promise<string> {
  const before = h.slack.responses.length;
  const delivery = await h.slack.deliverSlashCommand({ command: '/tsuka', text, userId, channelId: channel });
  expect(delivery.ackMs).toBeLessThan(3000);
  await h.slack.waitFor(() => h.slack.responses.length > before);
  const body = h.slack.responses.at(-1)!.body as { text: string; response_type?: string };
  expect(body.response_type).toBe('ephemeral');
  return body.text;
}

describe('/tsuka on Slack', () => {
  it('answers help, characters, teams and status privately', async () => {
    const harness = shared();
    const channel = harness.newChannel();
    expect(await tsuka(harness, channel, 'help')).toMatch(/\/call .*\/team .*\/goal/s);
    const characters = await tsuka(harness, channel, 'characters');
    for (const name of ['geordi', 'worf', 'pike', 'spock', 'una', 'data', 'doctor']) expect(characters).toContain(name);
    expect(await tsuka(harness, channel, 'teams')).toContain('dev_security');
    expect(await tsuka(harness, channel, 'status')).toMatch(/qwen2\.5-coder:7b/);
    expect(await tsuka(harness, channel, 'nonsense')).toMatch(/Unknown subcommand "nonsense"/);
  });

  it('lists runs and exports a transcript as an uploaded file, with secrets masked', async () => {
    const harness = shared();
    const channel = harness.newChannel();
    harness.model.enqueue({ toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }] });
    harness.model.enqueue({ text: 'The deploy token is tok-abcdefghijklmnop, keep it safe.' });
    const mention = await harness.slack.mention({ userId: 'U1', channelId: channel, text: `<@${harness.slack.botUserId}> geordi what is there?` });
    await harness.slack.waitFor(() =>
      harness.botReplies(channel, mention.ts).some((message) => message.text.includes('keep it safe') && buttonsOf(message).length === 0),
    );
    // Masked in the thread, too.
    expect(harness.botReplies(channel, mention.ts)[0]!.text).not.toContain('tok-abcdefghijklmnop');
    expect(await tsuka(harness, channel, 'runs')).toMatch(/ask · completed/);
    expect(await tsuka(harness, channel, 'export')).toMatch(/Uploaded the transcript/);
    const file = harness.slack.files.at(-1)!;
    expect(file.name).toMatch(/\.md$/);
    expect(file.channel).toBe(channel);
    expect(file.content).toContain('what is there?');
    expect(file.content).toContain('list_dir');
    expect(file.content).toContain('[secret masked]');
    expect(file.content).not.toContain('tok-abcdefghijklmnop');
  });

  it('routes /call, /team and /goal: a plain answer when workflows are absent, never silence', async () => {
    const harness = shared();
    const channel = harness.newChannel();
    const before = harness.slack.responses.length;
    await harness.slack.deliverSlashCommand({ command: '/goal', text: 'ship it', userId: 'U1', channelId: channel });
    await harness.slack.waitFor(() => harness.slack.responses.length > before || harness.slack.messages(channel).some((message) => /Goal/.test(message.text)));
    expect(
      responseTexts(harness).join('\n') +
        harness.slack
          .messages(channel)
          .map((message) => message.text)
          .join('\n'),
    ).toMatch(/goal/i);
  });

  describe('with U1 an admin', () => {
    const admin = useSlackHarness({ environment: { TSUKA_ADMINS: 'slack:U1' } });
    it('sets the channel default character, pins effort, and says /call is not available when it is not', async () => {
      const harness = admin();
      const channel = harness.newChannel();
      expect(await tsuka(harness, channel, 'default worf')).toMatch(/Worf now answers/);
      harness.model.enqueue({ text: 'Worf speaking.' });
      const mention = await harness.slack.mention({ userId: 'U1', channelId: channel, text: `<@${harness.slack.botUserId}> is our auth safe?` });
      await harness.slack.waitFor(() => harness.botReplies(channel, mention.ts).some((message) => message.text.includes('Worf speaking.')));
      expect(harness.botReplies(channel, mention.ts)[0]!.username).toBe('Worf');
      expect(await tsuka(harness, channel, 'effort low')).toMatch(/pinned to low/);
      harness.model.enqueue({ text: 'ok' });
      const second = await harness.slack.mention({ userId: 'U1', channelId: channel, text: `<@${harness.slack.botUserId}> geordi quick one` });
      await harness.slack.waitFor(() =>
        harness.botReplies(channel, second.ts).some((message) => message.text.includes('ok') && buttonsOf(message).length === 0),
      );
      expect((harness.model.requests.at(-1)!.body as { reasoning_effort?: string }).reasoning_effort).toBe('low');
      expect(await tsuka(harness, channel, 'effort turbo')).toMatch(/Unknown effort/);
    });
  });
});

describe('Slack identity fallback', () => {
  it('posts as the bot with the character name in bold when chat:write.customize is missing', async () => {
    const harness = shared();
    const channel = harness.newChannel();
    harness.slack.setScopes(['app_mentions:read', 'chat:write', 'commands', 'channels:history']);
    harness.model.enqueue({ text: 'Still here.' });
    const mention = await harness.slack.mention({ userId: 'U1', channelId: channel, text: `<@${harness.slack.botUserId}> geordi hello` });
    await harness.slack.waitFor(() =>
      harness.botReplies(channel, mention.ts).some((message) => message.text.includes('Still here.') && buttonsOf(message).length === 0),
    );
    const reply = harness.botReplies(channel, mention.ts)[0]!;
    expect(reply.username).toBeUndefined();
    // Bold in the streamed markdown (`**`), or in mrkdwn (`*`) when the reply was posted.
    expect(reply.text).toMatch(/^\*\*?Geordi\*\*?: /);
  });
});

describe('Slack HTTP mode', () => {
  const http = useSlackHarness({ environment: { SLACK_APP_TOKEN: '', SLACK_SIGNING_SECRET: 'shh-signing-secret' } });
  it('accepts signed events and refuses stale, future and forged ones', async () => {
    const harness = http();
    const url = `http://127.0.0.1:${harness.app.http.port}/slack/events`;
    const event = {
      type: 'event_callback',
      team_id: harness.slack.teamId,
      api_app_id: harness.slack.appId,
      event_id: 'Ev1',
      event_time: 1,
      event: {
        type: 'app_mention',
        user: 'U1',
        text: `<@${harness.slack.botUserId}> geordi via http`,
        ts: '1700000100.000100',
        channel: 'C1',
        event_ts: '1700000100.000100',
      },
    };
    const send = (timestamp: number, secret = 'shh-signing-secret') => {
      const body = JSON.stringify(event);
      const signature = `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
      return fetch(url, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', 'x-slack-request-timestamp': String(timestamp), 'x-slack-signature': signature },
      });
    };
    const now = Math.floor(Date.now() / 1000);
    expect((await send(now - 600)).status).toBe(401);
    expect((await send(now + 600)).status).toBe(401);
    expect((await send(now, 'wrong-secret')).status).toBe(401);
    const huge = await fetch(url, {
      method: 'POST',
      body: 'x'.repeat(2 * 1024 * 1024),
      headers: { 'content-type': 'application/json', 'x-slack-request-timestamp': String(now), 'x-slack-signature': 'v0=00' },
    }).catch(() => undefined);
    expect(huge === undefined || huge.status === 401).toBe(true);
    expect(harness.model.requests).toHaveLength(0);
    harness.model.enqueue({ text: 'Over HTTP.' });
    expect((await send(now)).status).toBe(200);
    await harness.slack.waitFor(() =>
      harness.slack.botMessages('C1').some((message) => message.text.includes('Over HTTP.') && message.thread_ts === '1700000100.000100'),
    );
  });
});
