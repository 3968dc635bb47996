/**
 * Every run in progress in this process (conversation turns and workflows), so that the Stop
 * button, `/tsuka stop` and shutdown reach them all. Only the requester or an admin may stop a run.
 */
import type { UserRef } from '../chat-surface.js';
import type { Coordination } from '../../core/coordination/coordination.js';
import type { RunStore } from '../../core/store/run-store.js';
import type { Logger } from '../../core/logger.js';

/** The abort reason used at shutdown: runs say they were interrupted, approvals that they expired. */
export const SHUTDOWN_REASON = 'shutdown';

/** The abort reason of `reset` in a thread: the stopped turn must not save its history back. */
export const RESET_REASON = 'reset';

export const isShutdown = (signal: AbortSignal): boolean => signal.aborted && signal.reason === SHUTDOWN_REASON;

/** What a thread is told when shutdown interrupts its run: with replicas, another one is still up. */
export const shutdownNotice = (replicas: boolean): string =>
  replicas
    ? '⚠️ This TSUKA replica is stopping — this run was interrupted. Ask again: another replica answers.'
    : '⚠️ Restarting — this run was interrupted. Ask again once TSUKA is back.';

export interface ActiveRun {
  runId: string;
  requester: UserRef;
  abort: AbortController;
  /** Settles when the run has finished (after it was told to stop, too). */
  done: Promise<unknown>;
  /** Called when a person (`by`) stops the run (e.g. to drop what was queued behind it, to say who stopped it). */
  onStop?: (by: UserRef | undefined) => void;
}

export interface ActiveRuns {
  register(run: ActiveRun): void;
  get(runId: string): ActiveRun | undefined;
  /**
   * `stopped` when aborted (here, or by the replica running it); `forbidden` when `by` is neither
   * the requester nor an admin; `unknown` when no live replica runs it.
   */
  stop(runId: string, by: UserRef): Promise<'stopped' | 'forbidden' | 'unknown'>;
  /** Aborts everything (with `SHUTDOWN_REASON`) and waits for the runs to end. */
  stopAll(): Promise<void>;
  list(): ActiveRun[];
  /** Runs in progress in `thread` on every replica (this one's when there are no others). */
  inThread(thread: string): Promise<string[]>;
  /** Runs in progress started by `user` on every replica (this one's when there are no others). */
  startedBy(user: UserRef): Promise<string[]>;
}

const STOP_TOPIC = 'run-stop';

export interface ActiveRunsOptions {
  /** Reaches runs of other replicas; in-process only when omitted. */
  coordination?: Coordination;
  runs?: Pick<RunStore, 'get' | 'runningOwners'>;
  logger?: Logger;
}

export function createActiveRuns(admins: readonly string[], options: ActiveRunsOptions = {}): ActiveRuns {
  const runs = new Map<string, ActiveRun>();
  const { coordination } = options;
  const stopHere = (run: ActiveRun, by: UserRef | undefined) => {
    run.onStop?.(by);
    run.abort.abort();
  };
  if (coordination?.shared) {
    void coordination
      .subscribe(STOP_TOPIC, (message) => {
        const run = runs.get(String(message.runId));
        if (run) stopHere(run, typeof message.by === 'string' ? message.by : undefined);
      })
      .catch((error: unknown) => options.logger?.warn('could not subscribe to run stops', { error }));
  }
  return {
    register(run) {
      runs.set(run.runId, run);
      void run.done.finally(() => {
        if (runs.get(run.runId) === run) runs.delete(run.runId);
      });
    },
    get: (runId) => runs.get(runId),
    async stop(runId, by) {
      const run = runs.get(runId);
      if (run) {
        if (run.requester !== by && !admins.includes(by)) return 'forbidden';
        stopHere(run, by);
        return 'stopped';
      }
      if (!coordination?.shared || !options.runs) return 'unknown';
      // Another replica may run it: the stored record says who asked, the owner stops it.
      const record = await options.runs.get(runId);
      if (record?.status !== 'running' || !record.owner || !(await coordination.isAlive(record.owner))) return 'unknown';
      if (record.startedBy !== by && !admins.includes(by)) return 'forbidden';
      return (await coordination.publish(STOP_TOPIC, { runId, by })) > 0 ? 'stopped' : 'unknown';
    },
    async stopAll() {
      const all = [...runs.values()];
      for (const run of all) run.abort.abort(SHUTDOWN_REASON);
      await Promise.allSettled(all.map((run) => run.done));
    },
    list: () => [...runs.values()],
    async inThread(thread) {
      const store = options.runs;
      if (!store) return [];
      // This replica's runs, and with replicas every run a live replica owns: their records say where they run.
      const candidates = new Set([...runs.keys(), ...(coordination?.shared ? (await store.runningOwners()).map((owned) => owned.runId) : [])]);
      const found: string[] = [];
      for (const runId of candidates) {
        const record = await store.get(runId);
        if (record?.status === 'running' && record.where.threadId === thread) found.push(runId);
      }
      return found;
    },
    async startedBy(user) {
      const here = [...runs.values()].filter((run) => run.requester === user).map((run) => run.runId);
      if (!coordination?.shared || !options.runs) return here;
      const elsewhere: string[] = [];
      for (const { runId } of await options.runs.runningOwners()) {
        if (here.includes(runId)) continue;
        const record = await options.runs.get(runId);
        if (record?.status === 'running' && record.startedBy === user) elsewhere.push(runId);
      }
      return [...here, ...elsewhere];
    },
  };
}
