/**
 * Tool calls and workflow steps as Slack task cards: `task_update` chunks on the streaming
 * methods, between the reply's `markdown_text` chunks at the place each task was given
 * (`task_display_mode: "timeline"`), or together under a `plan_update` title (`"plan"`). A
 * workspace that refuses the chunks is remembered, as for the streaming methods; its replies (and
 * tasks already given) show each finished task as its compact text line instead, at the same place.
 * https://docs.slack.dev/reference/methods/chat.appendStream (chunks) ·
 * https://docs.slack.dev/messaging/sending-and-scheduling-messages#text-streaming
 */
import type { AnyChunk } from '@slack/web-api';
import type { TaskUpdate } from '../../commands/chat-surface.js';
import type { Logger } from '../../core/logger.js';
import { createRefusalMemory, type ChunkSupport, type StreamContent } from './slack-messaging.js';

/** Slack's answers that say the stream itself is gone or busy, not that its chunks were refused. */
const NOT_ABOUT_CHUNKS = new Set(['message_not_in_streaming_state', 'message_not_found', 'channel_not_found', 'ratelimited', 'rate_limited', 'msg_too_long']);

/** Kept short: a card's title and output are one line each. */
const TITLE_MAX = 150;
const TEXT_MAX = 500;
const SOURCES_MAX = 5;

/** Which workspaces refused task chunks (remembered for the life of the process). */
export function createChunkSupport(logger: Logger): ChunkSupport {
  return createRefusalMemory(logger, "Slack refused task cards (task_update chunks): tool calls in this workspace's replies show as text lines");
}

/** True when a failed call that carried task chunks failed because of them (a Slack error, not the stream's end or a limit). */
export function refusedChunks(error: unknown): string | undefined {
  const code = (error as { data?: { error?: unknown } }).data?.error;
  return typeof code === 'string' && !NOT_ABOUT_CHUNKS.has(code) ? code : undefined;
}

const cut = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/** The `task_update` chunk of an update, in the shape Slack documents (a source always has its text). */
export function taskChunk(update: TaskUpdate): AnyChunk {
  const sources = (update.sources ?? [])
    .filter((source) => /^https?:\/\//.test(source.url))
    .slice(0, SOURCES_MAX)
    .map((source) => ({ type: 'url' as const, url: source.url, text: cut(source.text.trim() || source.url, TITLE_MAX) }));
  return {
    type: 'task_update',
    id: update.id,
    title: cut(update.title.trim() || update.id, TITLE_MAX),
    status: update.status,
    ...(update.details ? { details: cut(update.details, TEXT_MAX) } : {}),
    ...(update.output ? { output: cut(update.output, TEXT_MAX) } : {}),
    ...(sources.length > 0 ? { sources } : {}),
  } as AnyChunk;
}

/** A task given to the stream, at the length of the reply's text when it was given. */
interface QueuedTask {
  at: number;
  update: TaskUpdate;
}

/** A finished task's line where tasks are text (non-final updates show nothing: the thread status says what runs). */
const lineOf = (update: TaskUpdate): string | undefined =>
  update.status === 'complete' || update.status === 'error' ? (update.line ?? `${update.status === 'error' ? '⚠️' : '🔧'} ${update.title}`) : undefined;

/**
 * The tasks of one reply stream: queued until a call carries them, as chunks (`asChunks`) or as
 * text lines. Lines of a reply that is edited in place (placeholder + chat.update) stay, and every
 * edit shows them where they were given (`compose`).
 */
export function createTaskQueue() {
  let queued: QueuedTask[] = [];
  const lines: { at: number; line: string }[] = [];
  return {
    add(update: TaskUpdate, at: number): void {
      queued.push({ at, update });
    },
    get waiting(): boolean {
      return queued.length > 0;
    },
    /**
     * The chunks from `shown` (the escaped text already sent) to the whole text, with the queued
     * tasks at their places; the tasks are taken (`restore` puts them back when the call failed).
     */
    take(
      text: string,
      shown: string,
      markdown: (value: string) => string,
      asChunks: boolean,
    ): { chunks: AnyChunk[]; sent: string; carriesTasks: boolean; restore(): void } {
      const taken = queued;
      queued = [];
      const next = markdown(text);
      const chunks: AnyChunk[] = [];
      let cursor = shown.length;
      const addText = (value: string) => {
        if (value) chunks.push({ type: 'markdown_text', text: value });
      };
      for (const { at, update } of taken) {
        const prefix = markdown(text.slice(0, at));
        // A task goes after the text given before it; never before what is already shown.
        const place = next.startsWith(prefix) ? Math.max(cursor, prefix.length) : cursor;
        addText(next.slice(cursor, place));
        cursor = place;
        if (asChunks) chunks.push(taskChunk(update));
        else {
          const line = lineOf(update);
          if (line) addText(`${cursor > 0 && !next.slice(0, cursor).endsWith('\n') ? '\n' : ''}${markdown(line)}\n`);
        }
      }
      addText(next.slice(cursor));
      return {
        chunks,
        sent: next,
        carriesTasks: asChunks && taken.length > 0,
        restore: () => {
          queued = [...taken, ...queued];
        },
      };
    },
    /**
     * What a streaming call carries from `shown` on: `markdown_text` alone when no task card goes
     * with it, else `chunks` (a plan's title first on the first call, with the display mode).
     * `fields` undefined: nothing to send.
     */
    content(options: { whole: string; shown: string; markdown: (value: string) => string; asChunks: boolean; starting: boolean; planTitle?: string }) {
      const taken = this.take(options.whole, options.shown, options.markdown, options.asChunks);
      const plan = options.starting && options.planTitle && options.asChunks ? [{ type: 'plan_update' as const, title: options.planTitle }] : [];
      if (!taken.carriesTasks && plan.length === 0) {
        const markdownText = taken.chunks.map((chunk) => (chunk as { text: string }).text).join('');
        return { ...taken, fields: markdownText ? ({ markdown_text: markdownText } as StreamContent) : undefined };
      }
      const display = options.starting ? { task_display_mode: options.planTitle ? 'plan' : 'timeline' } : {};
      return { ...taken, fields: { chunks: [...plan, ...taken.chunks], ...display } as StreamContent };
    },
    /** From now on tasks are text in the message itself (an edited placeholder): queued ones become lines. */
    toLines(): void {
      for (const { at, update } of queued) {
        const line = lineOf(update);
        if (line) lines.push({ at, line });
      }
      queued = [];
    },
    addLine(update: TaskUpdate, at: number): void {
      const line = lineOf(update);
      if (line) lines.push({ at, line });
    },
    /** The reply's raw text with the task lines at their places. */
    compose(text: string): string {
      if (lines.length === 0) return text;
      let result = '';
      let cursor = 0;
      for (const { at, line } of [...lines].sort((a, b) => a.at - b.at)) {
        const place = Math.min(Math.max(cursor, at), text.length);
        result += text.slice(cursor, place);
        cursor = place;
        result += `${result && !result.endsWith('\n') ? '\n' : ''}${line}\n`;
      }
      return result + text.slice(cursor);
    },
  };
}

export type TaskQueue = ReturnType<typeof createTaskQueue>;

/** What `content` builds: the call's fields, the escaped text it brings Slack to, and how to give its tasks back. */
type BuiltContent = { fields?: StreamContent; sent: string; carriesTasks: boolean; restore(): void };

/**
 * Sends one streaming call built by `build`. When Slack refuses the task chunks it carried (not
 * the streaming methods themselves: `streamingRefusals`), `refuse` remembers it and the call is
 * built again — the tasks now as text lines — and sent once more. A failed call gives its tasks
 * back to the queue. Undefined: there was nothing to send.
 */
export async function sendWithTasks<T>(
  build: () => BuiltContent,
  send: (fields: StreamContent) => Promise<T>,
  refuse: (reason: string) => void,
  streamingRefusals: ReadonlySet<string>,
): Promise<{ response: T; sent: string } | undefined> {
  let content = build();
  for (let attempt = 0; ; attempt++) {
    if (!content.fields) return undefined;
    try {
      return { response: await send(content.fields), sent: content.sent };
    } catch (error) {
      content.restore();
      const refused = attempt === 0 && content.carriesTasks ? refusedChunks(error) : undefined;
      if (!refused || streamingRefusals.has(refused)) throw error;
      refuse(refused);
      content = build();
    }
  }
}
