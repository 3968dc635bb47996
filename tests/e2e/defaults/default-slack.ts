/**
 * Issue 35, "everything works in the default set-up, together": the Slack harness started with the
 * product's defaults and nothing else, plus the few steps the tests in this folder share.
 *
 * What `tests/support/test-app-config.ts` sets, and what these tests do with it:
 * - `TSUKA_HTTP_PORT=0`, `TSUKA_DATA_DIR`, `TSUKA_WORKSPACE`, `HOME` (a temp home): kept — a free
 *   port and fresh folders are not behaviour, and a fresh install has empty ones too.
 * - `TSUKA_LOG_LEVEL=warn`: kept — quieter output, nothing the bot does changes.
 * - `TSUKA_GOAL_CONFIRM=0` and `TSUKA_STREAM_EDIT_MS=200`: taken away, so /goal shows its plan card
 *   and waits for Run plan, and replies stream at the default pace, as they do for users.
 * - `TSUKA_SANDBOX=env-only` only where bubblewrap cannot run here (`test-sandbox.ts`): kept, and
 *   `expectDefaultSandbox` says which sandbox the app chose — where bubblewrap runs (CI) it is
 *   bubblewrap with the user-mode network (slirp4netns).
 * No Slack quota is raised: the emulator and the app keep Slack's published rates.
 */
import { expect } from 'vitest';
import { findProgram } from '../../../src/core/safety/sandbox-network.js';
import { callerOf } from '../../support/scripted-callers.js';
import type { ScriptedReplySpec } from '../../support/scripted-model-server.js';
import { BUBBLEWRAP_UNAVAILABLE } from '../../support/test-sandbox.js';
import { buttonsOf, startSlackHarness, type SlackHarness } from '../slack/slack-harness.js';

/** The switches of `test-app-config.ts` that change behaviour, taken away. */
export const DEFAULT_ENVIRONMENT: Record<string, undefined> = { TSUKA_GOAL_CONFIRM: undefined, TSUKA_STREAM_EDIT_MS: undefined };

export function startDefaultSlackHarness(): Promise<SlackHarness> {
  return startSlackHarness({ environment: DEFAULT_ENVIRONMENT });
}

/** Where bubblewrap runs: the app chose it, with the user-mode network when slirp4netns and ip are installed. */
export function expectDefaultSandbox(h: SlackHarness): void {
  const sandbox = h.app.engine.sandbox;
  if (BUBBLEWRAP_UNAVAILABLE !== undefined) {
    expect(sandbox.isolation, `bubblewrap cannot run here (${BUBBLEWRAP_UNAVAILABLE})`).not.toBe('bubblewrap');
    return;
  }
  expect(sandbox.isolation).toBe('bubblewrap');
  // Where select-sandbox.ts looks for them.
  const userNetworkInstalled = findProgram('slirp4netns', SYSTEM_PATH) !== undefined && findProgram('ip', SYSTEM_PATH) !== undefined;
  expect(sandbox.network, sandbox.summary).toBe(userNetworkInstalled ? 'user' : 'none');
  expect(h.app.engine.config.goalConfirm).toBe(true);
}

const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

export type Message = ReturnType<SlackHarness['botReplies']>[number];

/** Answers each model call by who asks (planner, step n, review n): parallel calls come in any order. */
export function scriptGoal(h: SlackHarness, script: Record<string, (ScriptedReplySpec | ((body: unknown) => ScriptedReplySpec))[]>): void {
  const total = Object.values(script).reduce((sum, answers) => sum + answers.length, 0);
  for (let index = 0; index < total; index++)
    h.model.enqueue((body) => {
      const next = script[callerOf(body as never)]?.shift();
      if (next === undefined) return { text: `(nothing scripted for ${callerOf(body as never)})` };
      return typeof next === 'function' ? next(body) : next;
    });
}

export const callers = (h: SlackHarness, from = 0): string[] => h.model.requests.slice(from).map((request) => callerOf(request.body as never));

const withButton = (messages: Message[], actionId: string) => messages.filter((message) => buttonsOf(message).some((button) => button.action_id === actionId));

/** `/goal <text>` by `userId`; resolves to its root message. */
export async function startGoal(h: SlackHarness, channel: string, text: string, userId = 'U1'): Promise<Message> {
  const isRoot = (message: Message) => Boolean(message.bot_id) && message.text.startsWith('🎯') && message.text.includes(text);
  await h.slack.deliverSlashCommand({ command: '/goal', text, userId, channelId: channel });
  await h.slack.waitFor(() => h.slack.messages(channel).some(isRoot));
  return h.slack.messages(channel).find(isRoot)!;
}

/** The newest message of the goal's thread with this button, once there are `count`. */
export async function waitForButton(h: SlackHarness, channel: string, root: Message, actionId: string, count = 1): Promise<Message> {
  await h.slack.waitFor(() => withButton(h.botReplies(channel, root.ts), actionId).length >= count, { timeoutMs: 20_000 });
  return withButton(h.botReplies(channel, root.ts), actionId).at(-1)!;
}

export function click(h: SlackHarness, channel: string, message: Message, actionId: string, userId = 'U1') {
  const button = buttonsOf(message).find((candidate) => candidate.action_id === actionId)!;
  return h.slack.deliverBlockAction({ userId, channelId: channel, messageTs: message.ts, threadTs: message.thread_ts, actionId, value: button.value });
}

/** The tool results in the last request of one caller (each request carries the turn so far). */
export function toolOutputs(h: SlackHarness, caller: string, from = 0): string[] {
  const last = h.model.requests.slice(from).findLast((request) => callerOf(request.body as never) === caller);
  const messages = (last?.body as { messages?: { role: string; content: string }[] } | undefined)?.messages ?? [];
  return messages.filter((message) => message.role === 'tool').map((message) => message.content);
}
