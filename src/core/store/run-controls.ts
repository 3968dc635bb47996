/**
 * The messages of a running run that carry its controls (a Stop button): where a reply's
 * placeholder, Slack's Stop companion or a run card went. Written when such a message is posted,
 * so that restart recovery can take those buttons away from a run it marks interrupted — the
 * process that would have removed them is gone.
 */
import type { Store } from './open-store.js';

/** One message that shows a run's controls. Ids are the adapters' opaque strings. */
export interface RunControl {
  message: string;
  thread?: string;
  /**
   * `companion`: a message that only carries the controls (Slack's Stop companion) and `card`: a
   * workflow's run card — each rewritten to say the run was interrupted; `message`: a reply whose
   * text stays, its buttons go.
   */
  kind: 'companion' | 'card' | 'message';
}

export interface RunControls {
  /** Records a message showing `runId`'s controls. */
  add(runId: string, control: RunControl): Promise<void>;
  /** The controls recorded for `runId`, forgotten as they are read (recovery takes them once). */
  take(runId: string): Promise<RunControl[]>;
}

/** Long past any run: a control of a run that ended normally is never read, and goes with the entry's expiry. */
const CONTROL_TTL_MS = 7 * 24 * 60 * 60_000;

const prefixOf = (runId: string): string => `${encodeURIComponent(runId)}:`;

/** The `run-controls` namespace of `store`. */
export function createRunControls(store: Store): RunControls {
  const controls = store.namespace<RunControl>('run-controls');
  return {
    async add(runId, control) {
      await controls.set(prefixOf(runId) + encodeURIComponent(control.message), control, CONTROL_TTL_MS);
    },
    async take(runId) {
      const found: [string, RunControl][] = [];
      for await (const entry of controls.entries(prefixOf(runId))) found.push(entry);
      for (const [key] of found) await controls.delete(key);
      return found.map(([, control]) => control);
    },
  };
}
