/**
 * Starts the whole bot (`startApp`) with the real Bolt against the Slack emulator and the
 * scripted model server, on 127.0.0.1, with a fresh data directory and workspace.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { testAppConfig } from '../../support/test-app-config.js';
import { startApp, type RunningApp } from '../../../src/app/start-app.js';
import type { RunRecord } from '../../../src/core/store/run-types.js';
import { DEFAULT_RATE_LIMITS } from '../../emulators/slack/rate-limiter.js';
import { DEFAULT_SLACK_SCOPES, startSlackEmulator, type SlackEmulator, type SlackEmulatorOptions } from '../../emulators/slack/slack-emulator.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../../support/scripted-model-server.js';

export interface SlackHarness {
  slack: SlackEmulator;
  model: ScriptedModelServer;
  app: RunningApp;
  home: string;
  workspace: string;
  logs: string[];
  /** Stops the app (a graceful shutdown, as a deploy does) and starts a new one on the same data folder, Slack workspace and model. */
  restartApp(): Promise<void>;
  /** Bot messages in a thread (parent excluded), oldest first. */
  botReplies(channel: string, threadTs: string): ReturnType<SlackEmulator['thread']>;
  /** A channel no test used yet (public; the bot and U1…U3), for a test sharing this harness. */
  newChannel(): string;
  /** The runs started in `channel`, newest first. */
  runsIn(channel: string): Promise<RunRecord[]>;
  /**
   * Puts back what one test may have changed for the next one sharing this harness: drops scripted
   * replies not taken, ends fault windows, forgets rate-limit counts, restores scopes and streaming.
   */
  resetForTest(): void;
  stop(): Promise<void>;
}

export interface SlackHarnessOptions {
  /** Added to the test configuration's environment; a key set to undefined takes a switch of `test-app-config.ts` away (the product's default). */
  environment?: Record<string, string | undefined>;
  emulator?: SlackEmulatorOptions;
  rateLimits?: Parameters<typeof startApp>[0]['slackRateLimits'];
  /** Written as tsuka.config.json in the home (the `channels` section, say); `home` names the folder. */
  configFile?: (home: string) => Record<string, unknown>;
}

/**
 * One harness for the tests of the enclosing `describe` (or file): started in `beforeAll`, stopped in
 * `afterAll`, reset before each test (`resetForTest`). Each test takes a fresh channel (`newChannel`).
 */
export function useSlackHarness(options: SlackHarnessOptions = {}): () => SlackHarness {
  let harness: SlackHarness | undefined;
  beforeAll(async () => {
    harness = await startSlackHarness(options);
  });
  afterAll(async () => {
    await harness?.stop();
    harness = undefined;
  });
  beforeEach(() => harness?.resetForTest());
  return () => {
    if (!harness) throw new Error('The shared Slack harness is not running (its beforeAll failed, or the test runs outside its describe).');
    return harness;
  };
}

export async function startSlackHarness(options: SlackHarnessOptions = {}): Promise<SlackHarness> {
  const home = await mkdtemp(path.join(os.tmpdir(), 'tsuka-slack-'));
  if (options.configFile) await writeFile(path.join(home, 'tsuka.config.json'), JSON.stringify(options.configFile(home)));
  const slack = await startSlackEmulator(options.emulator);
  const model = await startScriptedModelServer({ modelId: 'qwen2.5-coder:7b' });
  const workspace = path.join(home, 'workspace');
  const logs: string[] = [];
  const config = testAppConfig(home, model.baseURL, {
    SLACK_BOT_TOKEN: slack.botToken,
    SLACK_APP_TOKEN: slack.appToken,
    SLACK_API_URL: slack.apiUrl,
    TSUKA_ADMINS: 'slack:UADMIN',
    ...options.environment,
  });
  const launch = () =>
    startApp({
      config,
      io: { stdout: (text) => logs.push(text), stderr: (text) => logs.push(text), environment: {}, workingDirectory: home },
      slackRetries: 0,
      slackRateLimits: options.rateLimits,
    });
  let app = await launch();
  if (config.slack?.appToken) await slack.waitForConnection();
  return {
    slack,
    model,
    get app() {
      return app;
    },
    async restartApp() {
      await app.stop();
      const accepted = slack.connections;
      app = await launch();
      if (config.slack?.appToken) await slack.waitForConnection({ count: accepted + 1 });
    },
    home,
    workspace,
    logs,
    botReplies: (channel, threadTs) => slack.thread(channel, threadTs).filter((message) => message.bot_id && message.ts !== threadTs),
    newChannel: () => slack.createChannel(),
    // Runs name their channel as `slack:TEAM/CHANNEL`.
    runsIn: async (channel) => (await app.engine.runs.list()).filter((run) => run.where.channelId === `slack:${slack.teamId}/${channel}`),
    resetForTest() {
      model.clearQueue();
      model.setVision(undefined);
      slack.clearFaults();
      slack.setRateLimits({ ...DEFAULT_RATE_LIMITS, ...options.emulator?.rateLimits });
      slack.setScopes(options.emulator?.scopes ?? DEFAULT_SLACK_SCOPES);
      slack.setStreamingRefusal(options.emulator?.streamingRefusal);
      slack.setTaskChunksRefusal(options.emulator?.taskChunksRefusal);
    },
    async stop() {
      await app.stop();
      await slack.close();
      await model.close();
      await rm(home, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    },
  };
}

/** The elements of a stored message's actions blocks. */
function actionElements(message: { blocks?: unknown[] }): { type?: string }[] {
  return (message.blocks ?? []).flatMap((block) => ((block as { type?: string }).type === 'actions' ? ((block as { elements: never[] }).elements ?? []) : []));
}

/** The buttons of a stored message, as Block Kit elements (menus apart: `menusOf`). */
export function buttonsOf(message: { blocks?: unknown[] }): { action_id: string; value: string; text: { text: string } }[] {
  return actionElements(message).filter((element) => element.type === 'button') as never[];
}

/** The menus (`static_select` elements) of a stored message: a finished reply's Ask another character and Re-run. */
export function menusOf(message: {
  blocks?: unknown[];
}): { action_id: string; placeholder: { text: string }; options: { text: { text: string }; value: string }[] }[] {
  return actionElements(message).filter((element) => element.type === 'static_select') as never[];
}
