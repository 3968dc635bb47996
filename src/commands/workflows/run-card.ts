/**
 * The run card (design §2.4): one message per workflow run, edited in place — the current step or
 * speaker, elapsed time, whether it waits for the model and its place in the queue, and a Stop
 * button. Edits are coalesced to at most one per `intervalMs`; the final state has no buttons.
 */
import type { ChatSurface, MessageRef, ThreadRef } from '../chat-surface.js';
import { STOP_ACTION } from '../action-ids.js';
import type { QueueEstimate } from '../../core/model/language-model.js';
import { waitingNote } from '../runs/queue-note.js';

/** The least time between two edits of the card. */
export const RUN_CARD_INTERVAL_MS = 3_000;
/** When only the elapsed time changed, the card is refreshed this rarely: edits share the platform's budget with the replies. */
export const RUN_CARD_ELAPSED_REFRESH_MS = 15_000;

export interface RunCardOptions {
  surface: ChatSurface;
  thread: ThreadRef;
  runId: string;
  title: string;
  /** Place in the model queue of this run's current request and its expected wait; undefined when not waiting. */
  queue?: () => QueueEstimate | undefined;
  intervalMs?: number;
  now?: () => number;
  onError?: (error: unknown) => void;
  /** Told where the card went once posted (restart recovery takes a dead run's Stop button off it). */
  onPosted?: (message: MessageRef) => void;
}

export interface RunCard {
  start(): Promise<MessageRef>;
  /** The current step or speaker. */
  update(activity: string): void;
  /** Who waits for which approval (approval-waits.ts); undefined takes the line off. */
  approvals(line: string | undefined): void;
  /** Last edit: the outcome, no buttons. */
  finish(outcome: string): Promise<void>;
}

const elapsed = (ms: number): string => {
  const seconds = Math.floor(ms / 1000);
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
};

export function createRunCard(options: RunCardOptions): RunCard {
  const { surface, thread } = options;
  const now = options.now ?? Date.now;
  const intervalMs = options.intervalMs ?? RUN_CARD_INTERVAL_MS;
  const startedAt = now();
  const buttons = [{ actionId: STOP_ACTION, label: 'Stop', style: 'danger' as const, value: options.runId }];
  let message: MessageRef | undefined;
  let activity = 'starting';
  let approvalsLine: string | undefined;
  let shown = '';
  let shownPosition: number | undefined;
  let lastEditAt = 0;
  let timer: NodeJS.Timeout | undefined;
  let ticker: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;
  /** A render came while an edit was in flight: run it once that edit settles, not at the next slow refresh. */
  let renderAfterEdit = false;
  let finished = false;

  const text = (): string => {
    const estimate = options.queue?.();
    const waiting = estimate ? ` · ${waitingNote(estimate)}` : '';
    return `🛰 **${options.title}** · running · ${elapsed(now() - startedAt)}\nNow: ${activity}${waiting}${approvalsLine ? `\n${approvalsLine}` : ''}`;
  };

  function render(): void {
    if (finished || !message) return;
    if (inFlight) {
      renderAfterEdit = true;
      return;
    }
    const next = text();
    if (next === shown) return;
    shownPosition = options.queue?.()?.position;
    lastEditAt = now();
    const target = message;
    inFlight = surface
      .edit({ message: target, text: next, buttons })
      .then(() => {
        shown = next;
      })
      .catch((error: unknown) => options.onError?.(error))
      .finally(() => {
        inFlight = undefined;
        if (renderAfterEdit) {
          renderAfterEdit = false;
          schedule();
        }
      });
  }

  function schedule(): void {
    if (finished || timer) return;
    const wait = Math.max(0, lastEditAt + intervalMs - now());
    timer = setTimeout(() => {
      timer = undefined;
      render();
    }, wait);
    timer.unref?.();
  }

  return {
    async start() {
      shown = text();
      message = await surface.post({ thread, text: shown, buttons });
      options.onPosted?.(message);
      lastEditAt = now();
      shownPosition = options.queue?.()?.position;
      // Queue moves show within one interval; a mere clock change waits for the slower refresh.
      ticker = setInterval(() => {
        if (options.queue?.()?.position !== shownPosition || now() - lastEditAt >= Math.max(intervalMs, RUN_CARD_ELAPSED_REFRESH_MS)) render();
      }, intervalMs);
      ticker.unref?.();
      return message;
    },
    update(next) {
      activity = next;
      schedule();
    },
    approvals(line) {
      approvalsLine = line;
      schedule();
    },
    async finish(outcome) {
      finished = true;
      if (timer) clearTimeout(timer);
      if (ticker) clearInterval(ticker);
      await inFlight;
      if (!message) return;
      await surface
        .edit({ message, text: `🛰 **${options.title}** · ${outcome} · ${elapsed(now() - startedAt)}`, buttons: [] })
        .catch((error: unknown) => options.onError?.(error));
    },
  };
}
