/**
 * Coordination between the processes that serve one team (design §4): locks, set-if-absent claims,
 * pub/sub, replica leases, per-thread turns, shared rate budgets and shared generation slots,
 * behind one interface. In-process when the store is SQLite (one process per data folder);
 * Redis when several replicas share `TSUKA_STORE_URL=redis://…`. The command layer asks this port,
 * never Redis directly.
 */
import type { KeyedMutex } from '../store/keyed-mutex.js';
import type { SlotTicket, SlotWaiter } from './slot-priority.js';
import type { StoreHealth } from './redis-store-marker.js';

/** JSON data sent between replicas. */
export type CoordinationMessage = Record<string, unknown>;

/** A token bucket (`capacity` at once, refilled at `perSecond`) or a sliding window (`limit` per `windowMs`). */
export type RateRule = { kind: 'bucket'; capacity: number; perSecond: number } | { kind: 'window'; limit: number; windowMs: number };

/** Who holds a thread's turn: the replica running it, the person who asked, and the run once it exists. */
export interface TurnHolder {
  replicaId: string;
  requester: string;
  runId?: string;
}

/** One turn at a time per thread, across every replica; later messages wait in the thread's queue. */
export interface TurnQueues {
  /** Takes the thread's turn for `holder`, or (atomically) queues `item` behind the running turn. */
  enter(thread: string, item: CoordinationMessage, holder: TurnHolder): Promise<{ run: true } | { run: false; position: number }>;
  /** The running turn ended: hands over the next queued item (the turn stays here), or releases the turn. */
  next(thread: string, holder: TurnHolder): Promise<CoordinationMessage | undefined>;
  /** Records the run of the turn this replica holds (for Stop from another replica). */
  update(thread: string, holder: TurnHolder): Promise<void>;
  holder(thread: string): Promise<TurnHolder | undefined>;
  /** Drops the thread's queued items; returns how many. */
  clear(thread: string): Promise<number>;
  /** Gives up a turn this replica holds, leaving its queue for another replica (graceful shutdown). */
  release(thread: string): Promise<void>;
  /**
   * Takes a free turn (or one held by the stopped replica `from`) to answer what is queued: the
   * first item, or undefined (nothing taken) when the queue is empty or the turn is someone's.
   */
  resume(thread: string, holder: TurnHolder, from?: string): Promise<CoordinationMessage | undefined>;
}

/** A named leadership (e.g. the Discord gateway): at most one live replica holds it. */
export interface Leadership {
  readonly isLeader: boolean;
  /** Stops competing; a held leadership is given up at once. */
  stop(): Promise<void>;
}

/** A granted generation slot on one server. */
export interface SlotGrant {
  server: string;
  release(): void;
}

/**
 * Generation slots over several servers, `capacity` each, shared by every replica and granted by
 * class — people, then workflows, then schedules — first come first served within a class, a long
 * wait promoted (`slot-priority.ts`), across all of them.
 */
export interface SlotPool {
  /**
   * Waits for a free slot on one of `servers`; rejects with `AbortedError` when `signal` aborts.
   * Without a ticket the request is a person's.
   */
  acquire(request: { servers: readonly string[]; capacity: number; signal?: AbortSignal; id?: string; ticket?: SlotTicket }): Promise<SlotGrant>;
  /** Every replica's waiting requests, in the order they will be served. */
  queue(): Promise<SlotWaiter[]>;
  /** The 1-based place of the waiting request `id` among every replica's waiters (last known). */
  position(id: string): number | undefined;
  /** How many of this process's requests wait. */
  waiting(): number;
  /** How many slots of `server` are in use (all replicas). */
  inUse(server: string): Promise<number>;
}

export interface Coordination {
  /** This process, as other replicas see it (host, pid and a random part). */
  readonly replicaId: string;
  /** True when other processes may share the state (Redis); false for one process (SQLite). */
  readonly shared: boolean;
  /** Where coordination happens, for doctor and logs (`in-process` or the Redis URL without password). */
  readonly location: string;
  /** Per-key mutual exclusion across every replica (read-modify-write of the store). */
  readonly mutex: KeyedMutex;
  readonly turns: TurnQueues;
  /** Set-if-absent with a time to live: true for the first caller anywhere, false for every later one. */
  claim(key: string, ttlMs: number): Promise<boolean>;
  /** Sends to every replica subscribed to `topic` (this one included); resolves to how many received it. */
  publish(topic: string, message: CoordinationMessage): Promise<number>;
  /** Receives what is published on `topic`; resolves (once subscribed) to the unsubscribe function. */
  subscribe(topic: string, handler: (message: CoordinationMessage) => void): Promise<() => Promise<void>>;
  /** True while `replicaId`'s lease is alive (renewed by heartbeat); this replica is always alive. */
  isAlive(replicaId: string): Promise<boolean>;
  /** Competes for `name`; `onChange` is called with true when this replica takes it, false when it loses it. */
  lead(name: string, onChange: (leader: boolean) => void): Leadership;
  /** Takes one call from the shared budget `name`: 0 when taken, else how many ms until one may be. */
  takeToken(name: string, rule: RateRule): Promise<number>;
  /** A shared counter: adds 1 and returns the new value (`initial()` seeds it the first time it is used). */
  increment(key: string, initial: () => Promise<number>): Promise<number>;
  readonly slots: SlotPool;
  /** Shared state only: whether the Redis came back empty (its marker, redis-store-marker.ts) and keeps its data. */
  readonly storeHealth?: StoreHealth;
  /** Stops the heartbeat and leaderships, gives up this replica's lease (at once) and disconnects. */
  close(): Promise<void>;
}

/** Lease defaults (issue 13): renewed every 10 s, expired after 30 s without a renewal. */
export const LEASE_RENEW_MS = 10_000;
export const LEASE_TTL_MS = 30_000;
