/**
 * Slack's assistant surface (DMs with the app, issue 24): when a person opens a thread
 * (`assistant_thread_started`), suggested prompts naming the characters
 * (`assistant.threads.setSuggestedPrompts`); at the thread's first message, its title
 * (`assistant.threads.setTitle`). Both through the call budget like every Slack call. Bolt's
 * `Assistant` class is not used: it would take the DM's messages away from our own listener (and
 * its calls from the budget). A workspace that refuses the methods (no `assistant:write`, not an
 * assistant app) is remembered and not asked again; nothing here ever fails a reply.
 * On the Agent messaging experience (agent_view, issue 37) the prompts go to the Messages tab when
 * it opens (`app_home_opened`, tab `messages`) without a `thread_ts`: Slack answers `ok` to one with
 * a `thread_ts` there and shows nothing.
 * https://docs.slack.dev/reference/methods/assistant.threads.setTitle
 * https://docs.slack.dev/reference/methods/assistant.threads.setSuggestedPrompts
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../../core/logger.js';
import { threadTitle, type SuggestedPrompt } from '../../commands/turns/assistant-prompts.js';
import type { SlackCaller } from './call-budget.js';

/** Errors that say the workspace will refuse every call, not just this one. */
const REFUSED_FOR_GOOD = new Set(['missing_scope', 'not_allowed_token_type', 'no_permission', 'unknown_method', 'not_authed', 'invalid_auth']);
/** Threads opened and not yet titled, remembered at most this many (oldest forgotten first). */
const MAX_OPEN_THREADS = 1_000;

export interface AssistantThreads {
  /** A person opened an assistant thread: offer the prompts. */
  started(team: string, channel: string, threadTs: string): Promise<void>;
  /** A person opened the app's Messages tab (agent view): the prompts, for the conversation (no thread_ts). */
  messagesTabOpened(team: string, channel: string): Promise<void>;
  /** True once for the first message of a thread opened here: it is titled from `text` (the caller answers it as addressed to the bot). */
  firstMessage(team: string, channel: string, threadTs: string, text: string): boolean;
}

export interface AssistantThreadsOptions {
  client: WebClient;
  caller: SlackCaller;
  logger: Logger;
  /** The prompts to offer (the characters); none: no call. */
  prompts: () => SuggestedPrompt[];
}

export function createAssistantThreads(options: AssistantThreadsOptions): AssistantThreads {
  const { client, caller, logger } = options;
  const refused = new Set<string>();
  const untitled = new Set<string>();

  async function call(team: string, method: string, channel: string, send: () => Promise<unknown>): Promise<void> {
    if (refused.has(team)) return;
    try {
      await caller({ method, channel, priority: 'edit', call: send });
    } catch (error) {
      const code = (error as { data?: { error?: string } }).data?.error;
      if (code && REFUSED_FOR_GOOD.has(code)) {
        refused.add(team);
        logger.info('Slack refused the assistant thread methods: no thread titles or suggested prompts in this workspace', { team, error: code });
      } else logger.warn(`${method} failed`, { channel, error });
    }
  }

  return {
    async started(team, channel, threadTs) {
      untitled.add(`${channel}/${threadTs}`);
      if (untitled.size > MAX_OPEN_THREADS) untitled.delete(untitled.values().next().value as string);
      const prompts = options.prompts();
      if (prompts.length === 0) return;
      await call(team, 'assistant.threads.setSuggestedPrompts', channel, () =>
        client.assistant.threads.setSuggestedPrompts({ channel_id: channel, thread_ts: threadTs, title: 'Ask a character', prompts }),
      );
    },
    async messagesTabOpened(team, channel) {
      const prompts = options.prompts();
      if (prompts.length === 0) return;
      await call(team, 'assistant.threads.setSuggestedPrompts', channel, () =>
        client.assistant.threads.setSuggestedPrompts({ channel_id: channel, title: 'Ask a character', prompts }),
      );
    },
    firstMessage(team, channel, threadTs, text) {
      if (!untitled.delete(`${channel}/${threadTs}`)) return false;
      void call(team, 'assistant.threads.setTitle', channel, () =>
        client.assistant.threads.setTitle({ channel_id: channel, thread_ts: threadTs, title: threadTitle(text) }),
      );
      return true;
    },
  };
}
