/**
 * Slack's assistant surface (a DM with the app, or its side container): a person opens a thread
 * (`assistant_thread_started`, https://docs.slack.dev/reference/events/assistant_thread_started)
 * and the app titles it and offers prompts:
 * - assistant.threads.setTitle (https://docs.slack.dev/reference/methods/assistant.threads.setTitle):
 *   `channel_id`, `thread_ts`, `title`, all required;
 * - assistant.threads.setSuggestedPrompts (…/assistant.threads.setSuggestedPrompts): `channel_id`,
 *   `prompts` (up to four, each with its `title` and `message`), optional `thread_ts` and `title`.
 * Both need the `assistant:write` scope and are Tier 4. Shapes are checked as documented; errors are
 * Slack's (`invalid_arguments`, `channel_not_found`, `invalid_thread_ts`).
 * An app on the Agent messaging experience (`agent_view`, agent-view.ts) gets its prompts only
 * without a `thread_ts`: with one, Slack answers `ok` and shows nothing (recorded in `ignoredPrompts`).
 */
import type { RequestFields } from './http-body.js';
import { stringField } from './http-body.js';
import type { MessageStore } from './message-store.js';

export const ASSISTANT_SCOPES: Record<string, string> = {
  'assistant.threads.setTitle': 'assistant:write',
  'assistant.threads.setSuggestedPrompts': 'assistant:write',
};

/** Documented limit: "up to four suggested prompts". */
const MAX_PROMPTS = 4;

export interface SuggestedPromptsCall {
  channel: string;
  thread_ts?: string;
  title?: string;
  prompts: { title: string; message: string }[];
}

export interface AssistantTitle {
  channel: string;
  thread_ts: string;
  title: string;
}

/** Which messaging experience the app's manifest enables: the assistant view (legacy) or the agent view. */
export type MessagingView = 'assistant' | 'agent';

export interface AssistantThreads {
  readonly titles: AssistantTitle[];
  readonly suggestedPrompts: SuggestedPromptsCall[];
  /** Calls Slack answered `ok` but showed nothing for (a `thread_ts` on an agent-view app). */
  readonly ignoredPrompts: SuggestedPromptsCall[];
  view: MessagingView;
  handlers: Record<string, (fields: RequestFields) => Record<string, unknown>>;
  /** A person opens a new assistant thread in their DM with the app: its root message, then the event to deliver. */
  start(input: { userId: string; channelId: string; teamId: string; contextChannelId?: string }): { threadTs: string; event: Record<string, unknown> };
}

const fail = (error: string, detail?: string) => ({ ok: false, error, ...(detail ? { response_metadata: { messages: [`[ERROR] ${detail}`] } } : {}) });
const isText = (value: unknown): value is string => typeof value === 'string' && value.trim().length > 0;

/** `prompts` as a form field is a JSON string; as a JSON body, the array itself. */
function promptsOf(value: unknown): SuggestedPromptsCall['prompts'] | string {
  let prompts = value;
  if (typeof prompts === 'string') {
    try {
      prompts = JSON.parse(prompts) as unknown;
    } catch (error) {
      return `prompts is not JSON (${(error as Error).message})`;
    }
  }
  if (!Array.isArray(prompts) || prompts.length === 0) return 'prompts must be a non-empty array';
  if (prompts.length > MAX_PROMPTS) return `at most ${MAX_PROMPTS} prompts`;
  for (const [index, prompt] of prompts.entries()) {
    const entry = prompt as Record<string, unknown>;
    if (typeof prompt !== 'object' || prompt === null || !isText(entry.title) || !isText(entry.message)) return `prompts[${index}] needs a title and a message`;
  }
  return prompts as SuggestedPromptsCall['prompts'];
}

export function createAssistantThreads(store: MessageStore, view: MessagingView = 'assistant'): AssistantThreads {
  const titles: AssistantTitle[] = [];
  const suggestedPrompts: SuggestedPromptsCall[] = [];
  const ignoredPrompts: SuggestedPromptsCall[] = [];
  const isDm = (channel: string) => channel.startsWith('D');
  const knownThread = (channel: string, ts: string) => store.find(channel, ts) !== undefined;

  const threads: AssistantThreads = {
    titles,
    suggestedPrompts,
    ignoredPrompts,
    view,
    handlers: {
      'assistant.threads.setTitle': (fields) => {
        const channel = stringField(fields, 'channel_id');
        const threadTs = stringField(fields, 'thread_ts');
        if (!channel || !threadTs || !isText(fields.title)) return fail('invalid_arguments', 'channel_id, thread_ts and title are required');
        if (!isDm(channel)) return fail('channel_not_found');
        if (!knownThread(channel, threadTs)) return fail('invalid_thread_ts');
        titles.push({ channel, thread_ts: threadTs, title: fields.title });
        return { ok: true };
      },
      'assistant.threads.setSuggestedPrompts': (fields) => {
        const channel = stringField(fields, 'channel_id');
        if (!channel) return fail('invalid_arguments', 'channel_id is required');
        const prompts = promptsOf(fields.prompts);
        if (typeof prompts === 'string') return fail('invalid_arguments', prompts);
        if (fields.title !== undefined && typeof fields.title !== 'string') return fail('invalid_arguments', 'title must be a string');
        const threadTs = stringField(fields, 'thread_ts');
        if (!isDm(channel)) return fail('channel_not_found');
        if (threadTs !== undefined && !knownThread(channel, threadTs)) return fail('invalid_thread_ts');
        const call = { channel, ...(threadTs ? { thread_ts: threadTs } : {}), ...(fields.title ? { title: fields.title } : {}), prompts };
        // Agent view: prompts sit at the top of the conversation; one sent to a thread fails silently.
        if (threads.view === 'agent' && threadTs !== undefined) ignoredPrompts.push(call);
        else suggestedPrompts.push(call);
        return { ok: true };
      },
    },
    start({ userId, channelId, teamId, contextChannelId }) {
      // The thread's root, as Slack makes it when the person opens the app (subtype assistant_app_thread).
      const root = store.add({ channel: channelId, text: 'New chat', user: userId });
      const event = {
        type: 'assistant_thread_started',
        assistant_thread: {
          user_id: userId,
          context: { ...(contextChannelId ? { channel_id: contextChannelId } : {}), team_id: teamId, enterprise_id: null },
          channel_id: channelId,
          thread_ts: root.ts,
        },
        event_ts: store.nextTs(),
      };
      return { threadTs: root.ts, event };
    },
  };
  return threads;
}
