/** `tsuka doctor` against the emulators and the scripted model server: what works, what to fix. */
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main, PACKAGE_ROOT } from '../../src/cli/main.js';
import { runDoctor } from '../../src/cli/doctor-command.js';
import { loadConfig } from '../../src/config/load-config.js';
import { startSlackEmulator, type SlackEmulator } from '../emulators/slack/slack-emulator.js';
import { startDiscordEmulator, type DiscordEmulator } from '../emulators/discord/discord-emulator.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server.js';

let home: string;
let slack: SlackEmulator;
let discord: DiscordEmulator;
let model: ScriptedModelServer;

beforeAll(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), 'tsuka-doctor-'));
  slack = await startSlackEmulator({ scopes: ['app_mentions:read', 'chat:write', 'commands', 'channels:history', 'groups:history', 'files:write'] });
  discord = await startDiscordEmulator({ messageContentIntentAllowed: false });
  model = await startScriptedModelServer({ modelId: 'qwen2.5-coder:7b' });
});
afterAll(async () => {
  await slack.close();
  await discord.close();
  await model.close();
  await rm(home, { recursive: true, force: true });
});

async function doctor(environment: NodeJS.ProcessEnv): Promise<{ status: number; output: string }> {
  let output = '';
  const status = await main(['doctor'], {
    stdout: (text) => (output += text),
    stderr: (text) => (output += text),
    environment: { PATH: process.env.PATH, ...environment },
    workingDirectory: home,
  });
  return { status, output };
}

describe('tsuka doctor', () => {
  it('lists configuration problems, one line each, and stops there', async () => {
    const { status, output } = await doctor({ TSUKA_HTTP_PORT: 'nope', DISCORD_API_URL: 'discord' });
    expect(status).toBe(1);
    expect(output).toMatch(/✗ TSUKA_HTTP_PORT="nope" is not valid/);
    expect(output).toMatch(/✗ DISCORD_API_URL="discord" is not a valid http\(s\) URL/);
    expect(output).not.toMatch(/Model servers/);
  });

  it('checks platforms, data files, the store and the model server, and names each fix', async () => {
    const { status, output } = await doctor({
      SLACK_BOT_TOKEN: slack.botToken,
      SLACK_APP_TOKEN: slack.appToken,
      SLACK_API_URL: slack.apiUrl,
      DISCORD_BOT_TOKEN: discord.botToken,
      DISCORD_API_URL: discord.apiUrl,
      TSUKA_LLM_BASE_URL: model.baseURL,
      TSUKA_DATA_DIR: path.join(home, 'data'),
    });
    expect(output).toMatch(/✓ Slack token works/);
    expect(output).toMatch(/✓ Slack Socket Mode: SLACK_APP_TOKEN can connect/);
    expect(output).toMatch(/✗ Slack scopes missing: chat:write\.customize/);
    expect(output).toMatch(/✓ Discord token works/);
    // Issue 26: the invite link a new team needs next, with the application's own id.
    expect(output).toMatch(
      /· invite the bot: https:\/\/discord\.com\/oauth2\/authorize\?client_id=\d+&scope=bot%20applications\.commands&permissions=309774617600/,
    );
    expect(output).toMatch(/✗ Discord Message Content intent: not enabled[\s\S]*→ Developer Portal/);
    // Without TSUKA_PUBLIC_URL Slack shows emoji; Discord still shows pictures, on each character's own webhook (issue 40).
    expect(output).toMatch(
      /TSUKA_PUBLIC_URL is not set: Discord posts carry each character's picture on a webhook of its own [^\n]*, Slack posts show each character's emoji[^\n]*\n\s+→ set TSUKA_PUBLIC_URL/,
    );
    // One line per character: what it will look like on Discord.
    expect(output.match(/^· Discord face of /gm)).toHaveLength(13);
    expect(output).toMatch(
      /^· Discord face of Geordi: its generated picture, on a webhook of its own in each channel \(no public address needed\); in a channel whose 15 webhooks are taken: the name with :wrench: only$/m,
    );
    expect(output).toMatch(/✓ \d+ tool schemas/);
    expect(output).toMatch(/✓ 13 roles, 8 traits, 13 characters, 6 teams/);
    expect(output).toMatch(/✓ store opens/);
    expect(output).toMatch(/✓ TSUKA_LLM_BASE_URL at http:\/\/127\.0\.0\.1:\d+\/v1: 1 model\(s\), would use qwen2\.5-coder:7b/);
    expect(output).toMatch(/2 problem\(s\) to fix/);
    expect(status).toBe(1);
  });

  it('reports a broken data file with its file and field, and an unreachable model server with the commands to start one', async () => {
    const root = path.join(home, 'copy');
    for (const folder of ['roles', 'traits', 'characters', 'teams', 'tools_schemas'])
      await cp(path.join(PACKAGE_ROOT, folder), path.join(root, folder), { recursive: true });
    await cp(path.join(PACKAGE_ROOT, 'providers.json'), path.join(root, 'providers.json'));
    await writeFile(
      path.join(root, 'teams', 'dev_security.json'),
      JSON.stringify({ displayName: 'x', description: 'x', members: ['geordi', 'nobody'], mode: 'round-robin' }),
    );
    const config = loadConfig({
      environment: { TSUKA_LLM_BASE_URL: 'http://127.0.0.1:9/v1', TSUKA_DATA_DIR: path.join(home, 'data2') },
      workingDirectory: home,
      rootDirectory: root,
    });
    let output = '';
    const status = await runDoctor({
      io: { stdout: (text) => (output += text), stderr: (text) => (output += text), environment: {}, workingDirectory: home },
      config,
    });
    expect(status).toBe(1);
    expect(output).toMatch(
      /✗ teams\/dev_security\.json \/members\/1: .*nobody.*\n\s+→ edit teams\/dev_security.json \(its JSON Schema is in src\/core\/data\/team.schema.json\)/,
    );
    expect(output).toMatch(
      /✗ the configured model server http:\/\/127\.0\.0\.1:9\/v1 does not answer \(TSUKA_LLM_BASE_URL is binding[^\n]*\n\s+→ start it, or change or unset TSUKA_LLM_BASE_URL/,
    );
  });

  it('names the isolation level, the network mode and the limits: bubblewrap where it works, the declared fallback otherwise', async () => {
    const withBubblewrap = await doctor({
      TSUKA_LLM_BASE_URL: model.baseURL,
      TSUKA_DATA_DIR: path.join(home, 'data3'),
      TSUKA_SANDBOX: 'auto',
      TSUKA_SANDBOX_ALLOW: '10.1.2.3:5432',
    });
    expect(withBubblewrap.output).toMatch(
      /\nCommand sandbox\n✓ isolation: bubblewrap — [^\n]*\n[✓·] network: (user-mode \(slirp4netns\), host loopback unreachable|none)[^\n]*\n/,
    );
    // Issue 41: what the user-mode network refuses and what TSUKA_SANDBOX_ALLOW opens, port included.
    if (/network: user-mode/.test(withBubblewrap.output)) {
      expect(withBubblewrap.output).toMatch(
        /\n✓ network refuses: the host's own addresses \(all of them, read at each command\), [^\n]*10\.0\.0\.0\/8[^\n]*192\.168\.0\.0\/16/,
      );
      expect(withBubblewrap.output).toMatch(/\n✓ network allows \(TSUKA_SANDBOX_ALLOW[^\n]*\): 10\.1\.2\.3:5432 → 10\.1\.2\.3, TCP and UDP port 5432 only\n/);
    }
    expect(withBubblewrap.output).toMatch(/\n✓ limits: 256 processes [^\n]*; 512 MB tmpfs; output stopped past 32 MB\n/);
    const hostNetwork = await doctor({
      TSUKA_LLM_BASE_URL: model.baseURL,
      TSUKA_DATA_DIR: path.join(home, 'data3'),
      TSUKA_SANDBOX: 'auto',
      TSUKA_SANDBOX_NETWORK: 'host',
    });
    expect(hostNetwork.output).toMatch(
      /\n· network: the host's \(its loopback services included\)\n\s+→ for a network that reaches the internet but not the host's loopback services: install slirp4netns/,
    );
    const fallback = await doctor({ TSUKA_LLM_BASE_URL: model.baseURL, TSUKA_DATA_DIR: path.join(home, 'data3'), TSUKA_SANDBOX: 'none' });
    expect(fallback.output).toMatch(
      /\nCommand sandbox\n· isolation: environment only — no sandbox \(TSUKA_SANDBOX=none\).*\n\s+→ for full isolation install bubblewrap/,
    );
    expect(fallback.status).toBe(0);
  });
});
