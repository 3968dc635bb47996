/**
 * Renders one streaming turn into a thread through the surface's reply stream: a sign at once
 * (a status), then the text growing as the platform's budget allows, compact tool lines in order,
 * a thinking status while the model reasons, and continuation messages when the reply outgrows
 * one message. The text given to a stream only grows, so a platform may append it (Slack's
 * streaming methods) or edit the message (placeholder + edits).
 */
import type { AgentEvent } from '../../core/agent/agent-events.js';
import type { Button, ChatSurface, Identity, ReplyStream, StreamOptions, ThreadRef, UserRef } from '../chat-surface.js';
import { createEditReplyStream } from './edit-reply-stream.js';
import { createReplyCap, REPLY_MAX_CHARS } from './reply-cap.js';
import { splitMessage } from './split-message.js';
import { taskSources } from './task-sources.js';
import { EMPTY_ANSWER_TEXT } from './answer-notes.js';

export interface ReplyRendererOptions {
  surface: ChatSurface;
  thread: ThreadRef;
  identity?: Identity;
  /** Buttons shown while the turn runs (Stop); removed by `finish`. */
  runningButtons?: Button[];
  /** The user the reply answers. */
  recipient?: UserRef;
  /** Told of each message posted with the running buttons (restart recovery takes them away). */
  onControl?: StreamOptions['onControl'];
  /** What the reply works on (the request), for platforms that title the work (Slack's agent sessions). */
  title?: string;
  now?: () => number;
  onError?: (error: unknown) => void;
  /** Characters of text and tool lines shown in chat; the rest is attached as a file at the end. */
  maxReplyChars?: number;
}

export interface ReplyRenderer {
  /** Opens the reply: a visible sign at once (the placeholder, or the thread's status). */
  start(): Promise<void>;
  handle(event: AgentEvent): void;
  /** Appends a note line (queued, stopped, errors) to the reply. */
  note(text: string): void;
  /** What the reply shows while nothing has arrived yet (e.g. the place in the model queue); undefined clears it. */
  setWaiting(text: string | undefined): void;
  /** Final text: everything visible, the running buttons removed, the status cleared; `buttons` (menus) go on the last message. */
  finish(trailer?: string, buttons?: Button[]): Promise<void>;
  /** True while the tool call `toolCallId` is one of this reply's running calls. */
  hasTool(toolCallId: string): boolean;
  /**
   * Posts a card in the thread (an approval) where the reply stands: the message so far ends
   * above the card and the reply goes on in a new message below it, so what the call did is
   * shown after the card that asked for it, never above it.
   */
  aroundCard<T>(call: { toolCallId: string; toolName: string }, post: () => Promise<T>): Promise<T>;
}

/** What a turn that produced no text and no tool line shows: TSUKA's note, not the character's words. */
export const EMPTY_ANSWER_NOTE = `_(${EMPTY_ANSWER_TEXT})_`;

const THINKING_TICK_MS = 1000;
const TOOL_ICONS: Record<string, string> = { ok: '🔧', error: '⚠️', denied: '⛔', refused: '⚠️', aborted: '⏹' };
/** The line that ends a reply's message above an approval card, for a call not shown as a task card. */
export const asksApprovalLine = (summary: string): string => `🔐 ${summary} — asks for approval`;

/**
 * The part of the text that may be shown before the reply ends: up to the last whitespace, so a
 * word (or a secret) still being written is never shown half-typed.
 */
function settledPrefix(text: string): string {
  // Scans back over the last word only (a regex with a look-ahead to the end rescans the text from every space).
  for (let index = text.length - 1; index >= 0; index--) {
    if (/\s/.test(text[index]!)) return text.slice(0, index + 1);
  }
  return '';
}

/** What a reply's stream is opened with: its thread and who speaks, the running buttons, what it works on. */
const streamOptionsOf = (options: ReplyRendererOptions): StreamOptions => ({
  thread: options.thread,
  identity: options.identity,
  buttons: options.runningButtons,
  recipient: options.recipient,
  onControl: options.onControl,
  title: options.title,
});

export function createReplyRenderer(options: ReplyRendererOptions): ReplyRenderer {
  const { surface, thread } = options;
  const now = options.now ?? Date.now;
  const max = surface.limits.maxMessageLength;
  const startedAt = now();
  const report = (error: unknown) => options.onError?.(error);
  let stream: ReplyStream | undefined;
  /** What the current stream was given: the next text must extend it. */
  let streamed = '';
  let pending = '';
  let reasoningSince: number | undefined;
  let waiting: string | undefined;
  let finished = false;
  /** While a card is being posted: nothing new is shown, so the card lands after what is. */
  let holding = false;
  let flushing: Promise<void> | undefined;
  let thinkingTicker: NodeJS.Timeout | undefined;
  const openTools = new Map<string, string>();
  /** Tool calls shown as tasks (Slack's task cards), by tool call id: the task's id and the stream that shows it. */
  const taskOf = new Map<string, { id: string; stream: ReplyStream }>();
  let taskCount = 0;
  /** Complete parts cut off the live text, not yet shown in full on a message of their own. */
  const backlog: string[] = [];
  const cap = createReplyCap(options.maxReplyChars ?? REPLY_MAX_CHARS);

  const open = (): ReplyStream => {
    const streamOptions = streamOptionsOf(options);
    streamed = '';
    return (
      surface.startStream?.(streamOptions) ??
      createEditReplyStream({ ...streamOptions, surface, intervalMs: surface.limits.editIntervalMs, now, onError: report })
    );
  };

  const statusText = (): string => {
    const tool = [...openTools.values()].at(-1);
    if (tool) return `🔧 ${tool} …`;
    if (pending.trim().length > 0 || backlog.length > 0) return '';
    if (reasoningSince !== undefined) return `💭 thinking… ${Math.round((now() - reasoningSince) / 1000)} s`;
    return waiting ?? '💭 …';
  };

  const shownFloor = (): number => (backlog.length === 0 && stream?.appendOnly ? streamed.length : 0);

  /** Cuts complete parts off at once: text that streams in meanwhile stays in `pending`. */
  function cut(): void {
    if (pending.length <= max) return;
    // The cut never falls before what the stream already shows: shown text cannot be taken back.
    const parts = splitMessage(pending, max, shownFloor());
    if (parts.length > 1) {
      backlog.push(...parts.slice(0, -1));
      pending = parts.at(-1)!;
    }
  }

  /** Seals complete parts one message after the other; a part leaves the backlog only once shown. */
  function flush(): Promise<void> {
    // Nothing to seal: no flush starts (one that ended at once would stay set and hold every push back).
    if (backlog.length === 0) return flushing ?? Promise.resolve();
    flushing ??= (async () => {
      try {
        while (backlog.length > 0) {
          const part = backlog[0]!;
          stream ??= open();
          await stream.stop({ text: part, buttons: [] });
          backlog.shift();
          stream = undefined;
        }
      } finally {
        flushing = undefined;
      }
    })();
    return flushing;
  }

  function push(): void {
    if (finished || holding) return;
    cut();
    if (backlog.length > 0) {
      flush().then(push, report);
      return;
    }
    if (flushing) return;
    stream ??= open();
    // Never more than a part can hold, so the cut can always fall after what is shown.
    const shown = settledPrefix(pending.slice(0, max - 8));
    if (shown.length > streamed.length && shown.startsWith(streamed)) {
      streamed = shown;
      stream.append(shown);
    }
    stream.status(statusText());
  }

  const appendLine = (line: string, capped = true) => {
    const text = `${pending && !pending.endsWith('\n') ? '\n' : ''}${line}\n`;
    pending += capped ? cap.take(text) : text;
  };

  /** A tool call as a task card after the text so far (which is shown first, up to its last line). */
  function startTask(toolCallId: string, title: string, status: 'pending' | 'in_progress'): void {
    if (finished) return;
    if (pending && !pending.endsWith('\n')) pending += '\n';
    push();
    if (!stream?.tasks || !stream.task) return;
    const id = `task-${++taskCount}`;
    taskOf.set(toolCallId, { id, stream });
    stream.task({ id, title, status });
  }

  /** Attaches the whole reply when the cap held some of it back; the note says so. */
  async function attachOverflow(): Promise<void> {
    if (!cap.overflowed) return;
    const fileName = 'reply.md';
    try {
      await surface.uploadFile({ channel: surface.channelOf(thread), thread, fileName, title: 'The whole reply', content: cap.whole() });
      appendLine(cap.note(fileName), false);
    } catch (error) {
      report(error);
      appendLine('✂️ _The reply was too long to show in full, and attaching it as a file failed._', false);
    }
  }

  return {
    async start() {
      stream = open();
      stream.status(statusText());
    },
    handle(event) {
      switch (event.type) {
        case 'text-delta':
          pending += cap.take(event.text);
          break;
        case 'reasoning-delta':
          reasoningSince ??= now();
          // The thinking status counts seconds while nothing else shows.
          thinkingTicker ??= setInterval(() => {
            if (finished || pending.trim().length > 0) clearInterval(thinkingTicker);
            else push();
          }, THINKING_TICK_MS);
          break;
        case 'tool-call-started':
          openTools.set(event.toolCall.id, event.summary);
          if (stream?.tasks && stream.task) startTask(event.toolCall.id, event.summary, event.riskLevel === 'SAFE' ? 'in_progress' : 'pending');
          break;
        case 'tool-call-finished': {
          openTools.delete(event.toolCall.id);
          const line = `${TOOL_ICONS[event.outcome] ?? '🔧'} ${event.summary} — ${event.display}`;
          const task = taskOf.get(event.toolCall.id);
          taskOf.delete(event.toolCall.id);
          const ended = {
            title: event.summary,
            status: event.outcome === 'ok' ? ('complete' as const) : ('error' as const),
            output: event.display,
            sources: taskSources(event.toolCall.name, event.toolCall.arguments, event.output),
            line,
          };
          // Shown as a task where its card is still on the live message, or as a new card on the
          // message after an approval card (the one above stays as it was asked); else as a line.
          if (task && task.stream === stream && stream.task && !finished) stream.task({ id: task.id, ...ended });
          else if (task && stream?.tasks && stream.task && !finished) {
            if (pending && !pending.endsWith('\n')) pending += '\n';
            push();
            stream.task({ id: `task-${++taskCount}`, ...ended });
          } else appendLine(line);
          break;
        }
        default:
          return;
      }
      push();
    },
    setWaiting(text) {
      if (text === waiting) return;
      waiting = text;
      push();
    },
    note(text) {
      appendLine(text, false);
      push();
    },
    async finish(trailer, buttons = []) {
      await attachOverflow();
      if (trailer) pending += `${pending && !pending.endsWith('\n') ? '\n' : ''}${trailer}`;
      finished = true;
      clearInterval(thinkingTicker);
      openTools.clear();
      await flushing?.catch(() => undefined);
      if (pending.trim().length === 0) pending = `${EMPTY_ANSWER_NOTE} · ${Math.round((now() - startedAt) / 1000)} s`;
      await endMessage(buttons);
    },
    hasTool: (toolCallId) => openTools.has(toolCallId),
    async aroundCard(call, post) {
      if (finished) return post();
      holding = true;
      try {
        await flushing?.catch(() => undefined);
        const task = taskOf.get(call.toolCallId);
        if (task && task.stream === stream && stream?.task)
          stream.task({ id: task.id, title: openTools.get(call.toolCallId) ?? call.toolName, status: 'pending', details: 'asks for approval' });
        else appendLine(asksApprovalLine(openTools.get(call.toolCallId) ?? call.toolName), false);
        // A message that cannot be ended must not keep the card from being asked.
        await endMessage().catch(report);
        return await post();
      } finally {
        holding = false;
        // The rest of the reply, with its Stop button, below the card.
        if (!finished) {
          stream ??= open();
          push();
        }
      }
    },
  };

  /** Ends the current message with all of the text given so far (complete parts first); the next text opens a new one. */
  async function endMessage(buttons: Button[] = []): Promise<void> {
    if (stream === undefined && pending.trim().length === 0) return;
    const parts = splitMessage(pending, max, shownFloor());
    backlog.push(...parts.slice(0, -1));
    pending = parts.at(-1)!;
    await flush();
    stream ??= open();
    const ending = stream;
    await ending.stop({ text: pending, buttons });
    pending = '';
    if (stream === ending) stream = undefined;
  }
}
