/**
 * Starts the whole bot (`startApp`) with the real discord.js against the Discord emulator and
 * the scripted model server, on 127.0.0.1, with a fresh data directory and workspace.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { APIMessage } from 'discord.js';
import { testAppConfig } from '../../support/test-app-config.js';
import { startApp, type RunningApp } from '../../../src/app/start-app.js';
import {
  DEFAULT_USER,
  startDiscordEmulator,
  type DiscordEmulator,
  type DiscordEmulatorOptions,
  type RecordedMessage,
} from '../../emulators/discord/discord-emulator.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../../support/scripted-model-server.js';

export const ANA = DEFAULT_USER.id;
export const BEN = '1250000000000000301';
export const ADMIN = '1250000000000000399';

export interface DiscordHarness {
  discord: DiscordEmulator;
  model: ScriptedModelServer;
  app: RunningApp;
  home: string;
  workspace: string;
  logs: string[];
  /** A person mentions the bot in a channel (default: the first) or thread. */
  mention(input: { userId?: string; channelId?: string; content: string }): APIMessage;
  /** Bot messages in a thread (webhook or bot-authored, interaction answers excluded), oldest first. */
  botReplies(threadId: string): RecordedMessage[];
  /** Resolves once the thread holds a finished reply containing `text` (no buttons left). */
  waitForReply(threadId: string, text: string | RegExp, timeoutMs?: number): Promise<RecordedMessage>;
  /** Stops the bot only (the emulator keeps its state, e.g. for a second start). */
  stopApp(): Promise<void>;
  stop(): Promise<void>;
}

export interface DiscordHarnessOptions {
  /** Added to the harness's variables; `undefined` unsets one (e.g. `TSUKA_DISCORD_GUILD_IDS` for global commands). */
  environment?: Record<string, string | undefined>;
  emulator?: DiscordEmulatorOptions;
  /** Reuse a running emulator (a restart against the same Discord). */
  reuse?: DiscordEmulator;
  /**
   * Edit spacing per channel. Scenario tests use 100 ms (with the emulator's limit loosened) so
   * they do not wait out real pacing; the load test passes the real 1,000 ms.
   */
  pacing?: { editSpacingMsPerChannel: number };
  /** The data folder (characters, roles, …): default the repository's. */
  rootDirectory?: string;
}

export async function startDiscordHarness(options: DiscordHarnessOptions = {}): Promise<DiscordHarness> {
  const home = await mkdtemp(path.join(os.tmpdir(), 'tsuka-discord-'));
  // Discord allows about 5 message writes per 5 s in one channel; scenario tests loosen that so
  // a 429's multi-second wait does not dominate them (the load test keeps the real limit).
  const discord =
    options.reuse ??
    (await startDiscordEmulator({
      users: [DEFAULT_USER, { id: BEN, username: 'ben' }, { id: ADMIN, username: 'root' }],
      rateLimits: { messagesPerChannelPer5s: 30 },
      ...options.emulator,
    }));
  const model = await startScriptedModelServer({ modelId: 'qwen2.5-coder:7b' });
  const workspace = path.join(home, 'workspace');
  const logs: string[] = [];
  const config = testAppConfig(
    home,
    model.baseURL,
    {
      DISCORD_BOT_TOKEN: discord.botToken,
      DISCORD_API_URL: discord.apiUrl,
      TSUKA_DISCORD_GUILD_IDS: discord.guildId,
      TSUKA_ADMINS: `discord:${ADMIN}`,
      ...options.environment,
    },
    options.rootDirectory,
  );
  const app = await startApp({
    config,
    io: { stdout: (text) => logs.push(text), stderr: (text) => logs.push(text), environment: {}, workingDirectory: home },
    discordPacing: options.pacing ?? { editSpacingMsPerChannel: 100 },
  });
  let appStopped = false;
  const botReplies = (threadId: string) =>
    discord
      .messages(threadId)
      .filter(
        (message) =>
          !message.deleted && (message.webhookId !== undefined ? message.webhookId !== discord.applicationId : message.authorId === discord.botUserId),
      );
  const buttonCount = (message: RecordedMessage) => buttonsOf(message).length;
  const stopApp = async () => {
    if (appStopped) return;
    appStopped = true;
    await app.stop();
  };
  return {
    discord,
    model,
    app,
    home,
    workspace,
    logs,
    mention: ({ userId = ANA, channelId = discord.defaultChannelId, content }) => discord.postUserMessage({ channelId, userId, content, mentionsBot: true }),
    botReplies,
    waitForReply: (threadId, text, timeoutMs = 10_000) =>
      discord.waitFor(
        () =>
          botReplies(threadId).find(
            (message) => (typeof text === 'string' ? message.content.includes(text) : text.test(message.content)) && buttonCount(message) === 0,
          ),
        { timeoutMs },
      ),
    stopApp,
    async stop() {
      await stopApp();
      if (!options.reuse) await discord.close();
      await model.close();
      await rm(home, { recursive: true, force: true });
    },
  };
}

/** Every component of a stored message's action rows. */
function componentsOf(message: RecordedMessage): { type: number }[] {
  return (message.payload.components ?? []).flatMap((row) => ((row as { components?: unknown[] }).components ?? []) as { type: number }[]);
}

/** The buttons of a stored message, from its action rows (menus apart: `menusOf`). */
export function buttonsOf(message: RecordedMessage): { custom_id: string; label: string; style: number }[] {
  return componentsOf(message).filter((component) => component.type === 2) as never[];
}

/** The string selects of a stored message: a finished reply's Ask another character and Re-run. */
export function menusOf(message: RecordedMessage): { custom_id: string; placeholder: string; options: { label: string; value: string }[] }[] {
  return componentsOf(message).filter((component) => component.type === 3) as never[];
}

/** Whether every ``` fence in `text` is closed. */
export function fencesBalanced(text: string): boolean {
  return text.split('\n').filter((line) => /^\s*```/.test(line)).length % 2 === 0;
}
