/**
 * Starts the whole bot (`startApp`) with the real discord.js against the Discord emulator and
 * the scripted model server, on 127.0.0.1, with a fresh data directory and workspace.
 */
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { APIMessage, APIPublicThreadChannel, APIWebhook } from 'discord.js';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { testAppConfig } from '../../support/test-app-config.js';
import { startApp, type RunningApp } from '../../../src/app/start-app.js';
import {
  DEFAULT_USER,
  startDiscordEmulator,
  type DiscordEmulator,
  type DiscordEmulatorOptions,
  type FollowUpRecord,
  type RecordedMessage,
  type RestCallRecord,
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
  /** The channel mentions go to by default: the emulator's first, or the one `freshChannel` made. */
  readonly channelId: string;
  /**
   * Gives the next test a start of its own on this running bot: a new text channel (now `channelId`),
   * the model's queue and records emptied, what earlier tests left in the workspace removed, and
   * `threads`, `webhooks`, `calls` and `followUps` counted from here. Call it in `beforeEach`.
   */
  freshChannel(): Promise<string>;
  /** Threads started in `channelId`. */
  threads(): APIPublicThreadChannel[];
  /** Webhooks of `channelId`. */
  webhooks(): APIWebhook[];
  /** REST calls since the last `freshChannel` (all, before the first). */
  calls(): RestCallRecord[];
  /** Interaction follow-ups since the last `freshChannel` (all, before the first). */
  followUps(): FollowUpRecord[];
  /** A person mentions the bot in a channel (default: `channelId`) or thread. */
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
  await mkdir(workspace, { recursive: true });
  // What the start itself put in the workspace stays; whatever a test adds goes at the next fresh channel.
  const startEntries = new Set(await readdir(workspace));
  let channelId = discord.defaultChannelId;
  let callsFrom = 0;
  let followUpsFrom = 0;
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
    get channelId() {
      return channelId;
    },
    async freshChannel() {
      model.reset();
      const left = (await readdir(workspace)).filter((entry) => !startEntries.has(entry));
      await Promise.all(left.map((entry) => rm(path.join(workspace, entry), { recursive: true, force: true })));
      callsFrom = discord.calls.length;
      followUpsFrom = discord.followUps.length;
      channelId = discord.createChannel();
      return channelId;
    },
    threads: () => discord.threads().filter((thread) => thread.parent_id === channelId),
    webhooks: () => discord.webhooks().filter((webhook) => webhook.channel_id === channelId),
    calls: () => discord.calls.slice(callsFrom),
    followUps: () => discord.followUps.slice(followUpsFrom),
    mention: ({ userId = ANA, channelId: to = channelId, content }) => discord.postUserMessage({ channelId: to, userId, content, mentionsBot: true }),
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

/**
 * One bot for the tests of the calling `describe` (started before them, stopped after), each test
 * on a fresh channel (`freshChannel`). A configuration of its own is a `describe` of its own.
 */
export function sharedDiscordHarness(options?: DiscordHarnessOptions): () => DiscordHarness {
  let harness: DiscordHarness | undefined;
  beforeAll(async () => {
    harness = await startDiscordHarness(options);
  });
  afterAll(async () => {
    await harness?.stop();
  });
  beforeEach(async () => {
    await harness!.freshChannel();
  });
  return () => {
    if (!harness) throw new Error('the shared Discord harness did not start (see beforeAll)');
    return harness;
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
