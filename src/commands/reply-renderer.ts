/**
 * Renders one streaming turn into a thread: a placeholder at once, then the text growing by
 * edits coalesced to the surface's edit budget, compact tool lines in order, a thinking status
 * while the model reasons, and continuation messages when the reply outgrows one message.
 */
import type { AgentEvent } from '../core/agent/agent-events.js';
import type { Button, ChatSurface, Identity, MessageRef, ThreadRef } from './chat-surface.js';
import { splitMessage } from './split-message.js';

export interface ReplyRendererOptions {
  surface: ChatSurface;
  thread: ThreadRef;
  identity?: Identity;
  /** Buttons shown while the turn runs (Stop); removed by `finish`. */
  runningButtons?: Button[];
  now?: () => number;
  onError?: (error: unknown) => void;
}

export interface ReplyRenderer {
  start(): Promise<MessageRef>;
  handle(event: AgentEvent): void;
  /** Appends a note line (queued, stopped, errors) to the reply. */
  note(text: string): void;
  /** What the placeholder says while nothing has arrived yet (e.g. the place in the model queue); undefined clears it. */
  setWaiting(text: string | undefined): void;
  /** Final edit: everything visible, buttons removed. */
  finish(trailer?: string): Promise<void>;
  /** How many platform calls this renderer made (for the benchmark). */
  readonly calls: { posts: number; edits: number };
}

/** What a turn that produced no text and no tool line shows: TSUKA's note, not the character's words. */
export const EMPTY_ANSWER_NOTE = '_(no answer: the model returned nothing)_';

const TOOL_ICONS: Record<string, string> = { ok: '🔧', error: '⚠️', denied: '⛔', refused: '⚠️', aborted: '⏹' };

export function createReplyRenderer(options: ReplyRendererOptions): ReplyRenderer {
  const { surface, thread, identity } = options;
  const now = options.now ?? Date.now;
  const interval = surface.limits.editIntervalMs;
  const max = surface.limits.maxMessageLength;
  const startedAt = now();
  const calls = { posts: 0, edits: 0 };
  let current: MessageRef | undefined;
  let currentShown = '';
  let pending = '';
  let reasoningSince: number | undefined;
  let waiting: string | undefined;
  let lastEditAt = 0;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;
  let finished = false;
  let buttons: Button[] | undefined = options.runningButtons;
  const openToolLines = new Map<string, string>();

  const body = (): string => {
    if (pending.trim().length > 0) return pending;
    if (reasoningSince !== undefined) return `💭 thinking… ${Math.round((now() - reasoningSince) / 1000)} s`;
    return waiting ?? '💭 …';
  };

  /** Complete parts cut off the live text, not yet shown in full on a message of their own. */
  const backlog: string[] = [];

  async function render(): Promise<void> {
    // Cut complete parts off at once, before any await: text that streams in meanwhile stays in `pending`.
    if (pending.trim().length > 0) {
      const parts = splitMessage(pending, max);
      if (parts.length > 1) {
        backlog.push(...parts.slice(0, -1));
        pending = parts.at(-1)!;
      }
    }
    // Each complete part gets its own message; a part leaves the backlog only once it is shown, so a
    // failed post or edit loses nothing and never overwrites an earlier part.
    while (backlog.length > 0) {
      const part = backlog[0]!;
      if (current === undefined) await postCurrent(part, undefined);
      else await edit(part, [], true);
      backlog.shift();
      current = undefined;
    }
    const live = body();
    if (current === undefined) await postCurrent(live, finished ? undefined : buttons);
    else await edit(live, finished ? [] : buttons, finished);
  }

  async function postCurrent(text: string, withButtons: Button[] | undefined): Promise<void> {
    current = await surface.post({ thread, text, identity, buttons: withButtons });
    calls.posts++;
    currentShown = text;
  }

  async function edit(text: string, withButtons: Button[] | undefined, force = false): Promise<void> {
    if (current === undefined || (text === currentShown && !force)) return;
    await surface.edit({ message: current, text, identity, buttons: withButtons });
    calls.edits++;
    currentShown = text;
    lastEditAt = now();
  }

  function schedule(): void {
    if (finished || timer || inFlight) return;
    const wait = Math.max(0, lastEditAt + interval - now());
    timer = setTimeout(() => {
      timer = undefined;
      inFlight = render()
        .catch((error: unknown) => options.onError?.(error))
        .finally(() => {
          inFlight = undefined;
          if (!finished && body() !== currentShown) schedule();
        });
    }, wait);
  }

  function append(text: string): void {
    pending += text;
    schedule();
  }

  return {
    calls,
    async start() {
      current = await surface.post({ thread, text: body(), identity, buttons });
      calls.posts++;
      currentShown = body();
      // Posting is not an edit: the first text may replace the placeholder at once.
      return current;
    },
    handle(event) {
      switch (event.type) {
        case 'text-delta':
          append(event.text);
          break;
        case 'reasoning-delta':
          reasoningSince ??= now();
          if (pending.trim().length === 0) schedule();
          break;
        case 'tool-call-started': {
          const line = `🔧 ${event.summary} …`;
          openToolLines.set(event.toolCall.id, line);
          append(`${pending && !pending.endsWith('\n') ? '\n' : ''}${line}\n`);
          break;
        }
        case 'tool-call-finished': {
          const started = openToolLines.get(event.toolCall.id);
          const line = `${TOOL_ICONS[event.outcome] ?? '🔧'} ${event.summary} — ${event.display}`;
          openToolLines.delete(event.toolCall.id);
          const at = started ? pending.lastIndexOf(started) : -1;
          if (started && at >= 0) pending = pending.slice(0, at) + line + pending.slice(at + started.length);
          else append(`\n${line}\n`);
          schedule();
          break;
        }
        default:
          break;
      }
    },
    setWaiting(text) {
      if (text === waiting) return;
      waiting = text;
      if (pending.trim().length === 0) schedule();
    },
    note(text) {
      append(`${pending && !pending.endsWith('\n') ? '\n' : ''}${text}\n`);
    },
    async finish(trailer) {
      if (trailer) pending += `${pending && !pending.endsWith('\n') ? '\n' : ''}${trailer}`;
      // Finished first: an edit still in flight must not schedule another after the final one.
      finished = true;
      buttons = undefined;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await inFlight;
      if (pending.trim().length === 0) pending = `${EMPTY_ANSWER_NOTE} · ${Math.round((now() - startedAt) / 1000)} s`;
      await render();
    },
  };
}
