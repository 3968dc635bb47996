/**
 * The run store, observed: a run's record created and ended, its tool calls paired from the event
 * log (`tool-call` → `tool-result` by call id). Nothing in the agent loop reports anything: every
 * run kind (mention, /call, /team, /goal) already writes these through the store.
 *
 * The run a model call belongs to: `create` marks the caller's async context (AsyncLocalStorage
 * `enterWith`, synchronously, so the code that awaits it and everything it starts afterwards —
 * the agent loop's model calls — carries the run id). Code outside a run reads no id. Only traces
 * use that id, and an AsyncLocalStorage in use makes Node run a hook at every promise of the
 * process (a few percent of all CPU with 200 runs): without traces, runs are not marked.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { RunStore } from '../../core/store/run-store.js';
import type { RunRecord } from '../../core/store/run-types.js';
import type { RunStart, TelemetrySink } from './telemetry-sink.js';

interface RunMark {
  runId?: string;
}

const currentRun = new AsyncLocalStorage<RunMark>();

/** The run whose work is running here, when inside one created through an observed store. */
export const activeRunId = (): string | undefined => currentRun.getStore()?.runId;

/** At most this many tool calls waiting for their result are remembered (a run that died leaves its own). */
const MAX_OPEN_TOOL_CALLS = 10_000;

export function observeRunStore(
  runs: RunStore,
  sink: TelemetrySink,
  riskOf: (tool: string) => string,
  options: {
    /** Mark each run's async context so that `activeRunId` names it (traces need it). Default true. */
    markRuns?: boolean;
  } = {},
): RunStore {
  const markRuns = options.markRuns ?? true;
  const started = new Map<string, RunStart>();
  const openTools = new Map<string, number>();

  const ended = (record: RunRecord | undefined): void => {
    if (!record || record.status === 'running') return;
    const start = started.get(record.id);
    if (!start) return;
    started.delete(record.id);
    sink.runEnded({ ...start, outcome: record.status, endedAt: record.endedAt ?? Date.now() });
  };

  return {
    ...runs,
    // Not async: the mark must be set in the caller's own context, before its first await.
    create(input) {
      const mark: RunMark = {};
      if (markRuns) currentRun.enterWith(mark);
      return runs.create(input).then((record) => {
        mark.runId = record.id;
        if (record.status === 'running') {
          const start = { runId: record.id, kind: record.kind, platform: record.where.platform, startedAt: record.createdAt };
          started.set(record.id, start);
          sink.runStarted(start);
        }
        return record;
      });
    },
    async update(id, fn) {
      const record = await runs.update(id, fn);
      ended(record);
      return record;
    },
    async markInterrupted(id, note) {
      const record = await runs.markInterrupted(id, note);
      ended(record);
      return record;
    },
    async appendEvent(runId, event) {
      const stored = await runs.appendEvent(runId, event);
      if (event.type === 'tool-call' && event.callId) {
        if (openTools.size >= MAX_OPEN_TOOL_CALLS) openTools.delete(openTools.keys().next().value as string);
        openTools.set(`${runId}\n${event.callId}`, stored.at);
      } else if (event.type === 'tool-result') {
        const key = `${runId}\n${event.callId ?? ''}`;
        const startedAt = openTools.get(key) ?? stored.at;
        openTools.delete(key);
        sink.toolCall({ runId, tool: event.tool, risk: riskOf(event.tool), outcome: event.outcome, startedAt, endedAt: stored.at });
      }
      return stored;
    },
  };
}
