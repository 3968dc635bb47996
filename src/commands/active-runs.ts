/**
 * Every run in progress in this process (conversation turns and workflows), so that the Stop
 * button, `/tsuka stop` and shutdown reach them all. Only the requester or an admin may stop a run.
 */
import type { UserRef } from './chat-surface.js';

/** The abort reason used at shutdown: runs say they were interrupted, approvals that they expired. */
export const SHUTDOWN_REASON = 'shutdown';

/** The abort reason of `reset` in a thread: the stopped turn must not save its history back. */
export const RESET_REASON = 'reset';

export const isShutdown = (signal: AbortSignal): boolean => signal.aborted && signal.reason === SHUTDOWN_REASON;

export interface ActiveRun {
  runId: string;
  requester: UserRef;
  abort: AbortController;
  /** Settles when the run has finished (after it was told to stop, too). */
  done: Promise<unknown>;
  /** Called when a person stops the run (e.g. to drop what was queued behind it). */
  onStop?: () => void;
}

export interface ActiveRuns {
  register(run: ActiveRun): void;
  get(runId: string): ActiveRun | undefined;
  /** `stopped` when aborted; `forbidden` when `by` is neither the requester nor an admin. */
  stop(runId: string, by: UserRef): 'stopped' | 'forbidden' | 'unknown';
  /** Aborts everything (with `SHUTDOWN_REASON`) and waits for the runs to end. */
  stopAll(): Promise<void>;
  list(): ActiveRun[];
}

export function createActiveRuns(admins: readonly string[]): ActiveRuns {
  const runs = new Map<string, ActiveRun>();
  return {
    register(run) {
      runs.set(run.runId, run);
      void run.done.finally(() => {
        if (runs.get(run.runId) === run) runs.delete(run.runId);
      });
    },
    get: (runId) => runs.get(runId),
    stop(runId, by) {
      const run = runs.get(runId);
      if (!run) return 'unknown';
      if (run.requester !== by && !admins.includes(by)) return 'forbidden';
      run.onStop?.();
      run.abort.abort();
      return 'stopped';
    },
    async stopAll() {
      const all = [...runs.values()];
      for (const run of all) run.abort.abort(SHUTDOWN_REASON);
      await Promise.allSettled(all.map((run) => run.done));
    },
    list: () => [...runs.values()],
  };
}
