/**
 * Restart recovery of a run's buttons: the process that would have taken a run's Stop button away
 * died with it, so every message recorded as showing it (`run-controls`) loses it here — a reply
 * keeps its text, Slack's Stop companion and a run card say the run was interrupted.
 */
import type { ChatSurface } from '../commands/chat-surface.js';
import type { Logger } from '../core/logger.js';
import { createRunControls, type RunControl } from '../core/store/run-controls.js';
import type { Store } from '../core/store/open-store.js';
import type { RunRecord } from '../core/store/run-types.js';

/** What Slack's Stop companion says once its run was interrupted. */
export const COMPANION_INTERRUPTED_TEXT = '_Reply interrupted._';

/** The run card of an interrupted workflow run. */
const cardText = (run: RunRecord): string => `🛰 **${run.title}** · interrupted`;

/** Takes the controls off every message recorded for `run`; each failure is logged, none thrown. */
export async function removeDeadRunControls(deps: { store: Store; logger: Logger }, surface: ChatSurface, run: RunRecord): Promise<void> {
  const controls = await createRunControls(deps.store)
    .take(run.id)
    .catch((error: unknown) => {
      deps.logger.warn('could not read the messages showing an interrupted run’s Stop button', { runId: run.id, error });
      return [] as RunControl[];
    });
  for (const control of controls) {
    await removeOne(surface, run, control).catch((error: unknown) =>
      deps.logger.warn('could not take the Stop button off an interrupted run’s message', { runId: run.id, message: control.message, error }),
    );
  }
}

function removeOne(surface: ChatSurface, run: RunRecord, control: RunControl): Promise<void> {
  const thread = control.thread ?? run.where.threadId;
  if (control.kind === 'message' && surface.clearButtons && thread) return surface.clearButtons({ message: control.message, thread });
  const text = control.kind === 'card' ? cardText(run) : COMPANION_INTERRUPTED_TEXT;
  return surface.edit({ message: control.message, text, buttons: [] });
}
