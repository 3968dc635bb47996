/**
 * Slack and Discord in one process. Bolt's Socket Mode installs undici 7 as Node's global
 * dispatcher, after which discord.js's multipart requests (its own undici 6) fail unless the
 * Discord REST client has an agent of its own: an export upload on Discord proves it has.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSlackEmulator, type SlackEmulator } from '../../emulators/slack/slack-emulator.js';
import { ANA, startDiscordHarness, type DiscordHarness } from './discord-harness.js';

let harness: DiscordHarness | undefined;
let slack: SlackEmulator | undefined;
afterEach(async () => {
  await harness?.stop();
  await slack?.close();
  harness = undefined;
  slack = undefined;
});

describe('Slack and Discord together', () => {
  it('runs both adapters and uploads a file on Discord after Bolt has connected', async () => {
    slack = await startSlackEmulator();
    harness = await startDiscordHarness({ environment: { SLACK_BOT_TOKEN: slack.botToken, SLACK_APP_TOKEN: slack.appToken, SLACK_API_URL: slack.apiUrl } });
    await slack.waitForConnection();
    const { discord, model, app } = harness;
    expect(Object.keys(app.surfaces).sort()).toEqual(['discord', 'slack']);
    expect(harness.logs.join('')).toMatch(/TSUKA is running: Slack, Discord/);
    // The banner names the command isolation (bubblewrap here; the fallback where bwrap cannot run).
    expect(harness.logs.join('')).toMatch(/isolation: (bubblewrap|environment only|separate user) — /);
    model.enqueue({ text: 'Both platforms.' });
    const question = harness.mention({ content: 'geordi hello from discord' });
    await harness.waitForReply(question.id, 'Both platforms.');
    const invoked = await discord.invokeSlashCommand({
      name: 'tsuka',
      options: [{ name: 'command', type: 3, value: 'export' }],
      userId: ANA,
      channelId: discord.defaultChannelId,
    });
    await invoked.responded;
    const upload = await discord.waitFor(() => discord.messages(discord.defaultChannelId).find((message) => message.files.length > 0));
    expect(upload.files[0]!.bytes.toString('utf8')).toContain('Both platforms.');
    const ready = (await (await fetch(`http://127.0.0.1:${app.http.port}/readyz`)).json()) as Record<string, unknown>;
    expect(ready).toMatchObject({ ready: true, slack: true, discord: true });
  });
});
