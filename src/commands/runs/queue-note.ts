/**
 * A run's place in the generation queue, as its reply and its run card say it: "2nd in queue ·
 * ~40 s" (issue 25), or "2nd in queue" while no speed is known. The note changes only when the
 * place does, so a waiting run's message is not edited for every new estimate.
 */
import type { LanguageModel, QueueEstimate } from '../../core/model/language-model.js';
import { isQueuedModel } from '../../core/model/queued-model.js';
import type { SlotTicket } from '../../core/coordination/slot-priority.js';

/** 1st, 2nd, 3rd, 11th, 22nd… */
export function ordinal(position: number): string {
  const tens = position % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[position % 10] ?? 'th');
  return `${position}${suffix}`;
}

/** `~40 s`, `~3 min`: rounded, never more precise than an estimate is. */
export function formatWait(seconds: number): string {
  if (seconds < 90) return `~${Math.max(1, Math.round(seconds))} s`;
  return `~${Math.round(seconds / 60)} min`;
}

/** "2nd in queue · ~40 s". */
export function queuePlace(estimate: QueueEstimate): string {
  return `${ordinal(estimate.position)} in queue${estimate.seconds === undefined ? '' : ` · ${formatWait(estimate.seconds)}`}`;
}

/** The line a waiting reply or run card shows. */
export const waitingNote = (estimate: QueueEstimate): string => `⏳ waiting for the model (${queuePlace(estimate)})`;

/**
 * Where the run of `signal` waits, read from `model` — the same estimate while the place stays the
 * same. Tags the run's requests with `ticket` (its class in the queue) when the model has a queue.
 */
export function watchQueue(model: LanguageModel, signal: AbortSignal, ticket: SlotTicket): () => QueueEstimate | undefined {
  if (!isQueuedModel(model)) return () => undefined;
  model.tag(signal, ticket);
  let shown: QueueEstimate | undefined;
  return () => {
    const position = model.position(signal);
    if (position === undefined) shown = undefined;
    else if (shown?.position !== position) shown = model.estimate(signal) ?? { position };
    return shown;
  };
}
