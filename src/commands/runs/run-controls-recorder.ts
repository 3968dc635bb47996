/**
 * A turn's Stop button, and the record of each message that shows it (`run-controls`), so that a
 * restart after the process died takes the button off the dead run (`src/app/replica-watch.ts`).
 */
import { createRunControls, type RunControl } from '../../core/store/run-controls.js';
import { STOP_ACTION } from '../action-ids.js';
import type { Button, MessageRef, StreamOptions, ThreadRef } from '../chat-surface.js';
import type { CommandDependencies } from '../command-dependencies.js';

/** Records that `message` shows `runId`'s controls; a failure is logged, never thrown. */
export function controlRecorder(deps: Pick<CommandDependencies, 'store' | 'logger'>, runId: string, thread: ThreadRef) {
  const controls = createRunControls(deps.store);
  return (control: { message: MessageRef; kind: RunControl['kind'] }): void => {
    void controls
      .add(runId, { ...control, thread })
      .catch((error: unknown) => deps.logger.warn('could not record the message showing a Stop button', { runId, error }));
  };
}

/**
 * The running buttons of a turn's reply, who records where they are shown, and what the turn works
 * on (`title`: where the platform's own Stop lives in a titled session, Slack's agent session).
 */
export function runningControls(
  deps: Pick<CommandDependencies, 'store' | 'logger'>,
  runId: string,
  thread: ThreadRef,
  title?: string,
): { runningButtons: Button[]; onControl: NonNullable<StreamOptions['onControl']>; title?: string } {
  return {
    runningButtons: [{ actionId: STOP_ACTION, label: 'Stop', style: 'secondary', value: runId }],
    onControl: controlRecorder(deps, runId, thread),
    ...(title ? { title } : {}),
  };
}

/** A workflow run card's run id and who records where the card went. */
export function cardControls(deps: Pick<CommandDependencies, 'store' | 'logger'>, runId: string, thread: ThreadRef) {
  const record = controlRecorder(deps, runId, thread);
  return { runId, onPosted: (message: MessageRef) => record({ message, kind: 'card' }) };
}
