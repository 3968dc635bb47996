/**
 * Runs and their event logs. A record lives under its id in `runs`; each event is its own entry in
 * `run-events` under `<run>:<seq>`, so an append writes one row whatever the log's length, and it
 * is written before `appendEvent` resolves (callers post to chat after that). With one process the
 * next seq is kept in memory after the first append; replicas share a counter per run instead.
 */
import { randomBytes } from 'node:crypto';
import { StoreError } from '../errors.js';
import { createKeyedMutex } from './keyed-mutex.js';
import type { Store } from './open-store.js';
import type { RunEvent, RunEventInput, RunRecord, RunStatus } from './run-types.js';

const SEQ_DIGITS = 9;

export interface RunStore {
  create(record: Omit<RunRecord, 'id' | 'status' | 'createdAt'> & Partial<Pick<RunRecord, 'id' | 'status' | 'createdAt'>>): Promise<RunRecord>;
  get(id: string): Promise<RunRecord | undefined>;
  /** Read-modify-write of a record, serialized per run; throws `StoreError` for an unknown run. */
  update(id: string, fn: (record: RunRecord) => RunRecord): Promise<RunRecord>;
  appendEvent(runId: string, event: RunEventInput): Promise<RunEvent>;
  events(runId: string): Promise<RunEvent[]>;
  /** Newest first. */
  list(options?: { limit?: number; status?: RunStatus }): Promise<RunRecord[]>;
  /** Marks every `running` run `interrupted` (with a status event), but those `keep` spares, and returns them. */
  markInterruptedRunning(note?: string, keep?: (run: RunRecord) => boolean): Promise<RunRecord[]>;
  /** Marks one run `interrupted` when it is still running; undefined when it was not. */
  markInterrupted(id: string, note: string): Promise<RunRecord | undefined>;
  /** Runs in progress and the replica running each (a small index kept beside the records). */
  runningOwners(): Promise<{ runId: string; owner: string }[]>;
  /**
   * Resume: an `interrupted` run becomes `running` again, owned by this replica; undefined when it
   * is not interrupted (already resumed, or never stopped) — so two clicks resume it once.
   */
  reopen(id: string): Promise<RunRecord | undefined>;
}

function newRunId(now: number): string {
  return `run-${now.toString(36)}-${randomBytes(3).toString('hex')}`;
}

/** The key prefix of a run's events in the `run-events` namespace. */
export const runEventPrefix = (runId: string): string => `${encodeURIComponent(runId)}:`;
const eventPrefix = runEventPrefix;
const eventKey = (runId: string, seq: number): string => eventPrefix(runId) + String(seq).padStart(SEQ_DIGITS, '0');

/** Creates the run store over `store`'s `runs` and `run-events` namespaces. */
export function createRunStore(
  store: Store,
  options: {
    now?: () => number;
    /** Numbers events across replicas (a shared counter per run); this process's memory when omitted. */
    sequence?: { increment(key: string, initial: () => Promise<number>): Promise<number> };
    /** The replica creating runs here, recorded as their owner. */
    owner?: string;
  } = {},
): RunStore {
  const now = options.now ?? Date.now;
  const records = store.namespace<RunRecord>('runs');
  const log = store.namespace<RunEvent>('run-events');
  // Runs in progress → their owner: what failover looks at every few seconds, without listing every run.
  const running = store.namespace<string>('running-runs');
  const appendLock = createKeyedMutex();
  // Next seq per run, learned from the stored log the first time this process appends to the run.
  const nextSeq = new Map<string, number>();

  async function lastStoredSeq(runId: string): Promise<number> {
    let last = 0;
    for await (const [, event] of log.entries(eventPrefix(runId))) last = Math.max(last, event.seq);
    return last;
  }

  async function appendEvent(runId: string, input: RunEventInput): Promise<RunEvent> {
    const shared = options.sequence;
    if (shared) {
      // Several replicas may append to one run (a click decided elsewhere, a recovery): the counter is shared.
      const seq = await shared.increment(`run-seq:${runId}`, () => lastStoredSeq(runId));
      const event = { ...input, seq, at: now() } as RunEvent;
      await log.set(eventKey(runId, seq), event);
      return event;
    }
    return appendLock.run(runId, async () => {
      let seq = nextSeq.get(runId);
      if (seq === undefined) seq = (await lastStoredSeq(runId)) + 1;
      const event = { ...input, seq, at: now() } as RunEvent;
      await log.set(eventKey(runId, seq), event);
      nextSeq.set(runId, seq + 1);
      return event;
    });
  }

  async function update(id: string, fn: (record: RunRecord) => RunRecord): Promise<RunRecord> {
    const record = await records.update(id, (current) => {
      if (!current) throw new StoreError(`Unknown run "${id}".`);
      return fn(current);
    });
    if (record.status !== 'running') await running.delete(id);
    return record;
  }

  async function markInterrupted(id: string, note: string): Promise<RunRecord | undefined> {
    let changed = false;
    const record = await update(id, (current) => {
      if (current.status !== 'running') return current;
      changed = true;
      return { ...current, status: 'interrupted', endedAt: now() };
    }).catch((error: unknown) => {
      if (error instanceof StoreError && /Unknown run/.test(error.message)) return undefined;
      throw error;
    });
    if (!record) {
      await running.delete(id);
      return undefined;
    }
    if (!changed) return undefined;
    await appendEvent(record.id, { type: 'status', status: 'interrupted', note });
    return record;
  }

  async function list(listOptions: { limit?: number; status?: RunStatus } = {}): Promise<RunRecord[]> {
    const found: RunRecord[] = [];
    for await (const [, record] of records.entries()) {
      if (!listOptions.status || record.status === listOptions.status) found.push(record);
    }
    found.sort((a, b) => b.createdAt - a.createdAt);
    return listOptions.limit === undefined ? found : found.slice(0, listOptions.limit);
  }

  return {
    async create(input) {
      const createdAt = input.createdAt ?? now();
      const record: RunRecord = {
        ...input,
        id: input.id ?? newRunId(createdAt),
        status: input.status ?? 'running',
        createdAt,
        ...(options.owner ? { owner: options.owner } : {}),
      };
      const stored = await records.update(record.id, (current) => {
        if (current) throw new StoreError(`A run with id "${record.id}" already exists.`);
        return record;
      });
      if (stored.status === 'running') await running.set(stored.id, stored.owner ?? '');
      return stored;
    },
    get: (id) => records.get(id),
    update,
    appendEvent,
    async events(runId) {
      const found: RunEvent[] = [];
      for await (const [, event] of log.entries(eventPrefix(runId))) found.push(event);
      return found;
    },
    list,
    async markInterruptedRunning(note = 'The bot restarted while this run was in progress.', keep) {
      const interrupted: RunRecord[] = [];
      for (const found of await list({ status: 'running' })) {
        if (keep?.(found)) continue;
        const record = await markInterrupted(found.id, note);
        if (record) interrupted.push(record);
      }
      return interrupted;
    },
    markInterrupted,
    async reopen(id) {
      let reopened = false;
      const record = await records.update(id, (current) => {
        if (!current) throw new StoreError(`Unknown run "${id}".`);
        if (current.status !== 'interrupted') return current;
        reopened = true;
        const { endedAt: _ended, ...rest } = current;
        return { ...rest, status: 'running', ...(options.owner ? { owner: options.owner } : {}) };
      });
      if (!reopened) return undefined;
      await running.set(record.id, record.owner ?? '');
      await appendEvent(record.id, { type: 'status', status: 'running', note: 'resumed' });
      return record;
    },
    async runningOwners() {
      const found: { runId: string; owner: string }[] = [];
      for await (const [runId, owner] of running.entries()) found.push({ runId, owner });
      return found;
    },
  };
}
