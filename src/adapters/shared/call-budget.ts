/**
 * One budget scheduler per platform: every call of an adapter names the budget it spends (a
 * channel's posting bucket, a workspace's per-minute tier, a Discord route) and a priority. Calls
 * go out only while their budget has room, so the platform (almost) never answers 429; when room
 * is short, a visible sign (acknowledgement) goes first, then a reply's first text and its final
 * text, and intermediate edits last. Intermediate edits of one message coalesce (the newest text
 * wins), keep a reserve of the budget free for the others, and are spaced further apart as more
 * replies stream on the same budget (`openStream`). Among waiting edits, the message whose last
 * call went out longest ago goes first, so that many replies share a short budget in turn.
 * A call may spend several budgets at once (a message posted by a streaming method spends its
 * channel's and its method's); it goes when all of them have room.
 */
import { TsukaError } from '../../core/errors.js';
import type { RateRule } from '../../core/coordination/coordination.js';
import { newBudgetState, pauseState, periodMs, refundOn, roomOf, spendOn, type BudgetState } from './budget-state.js';

/** A token bucket (`capacity` at once, refilled at `perSecond`) or a sliding window (`limit` per `windowMs`). */
export type BudgetRule = RateRule;

/**
 * The budgets several replicas share (Redis): asked for each call after this process's own budget
 * let it through; resolves to 0 when the call may go, else how long to wait.
 */
export type SharedBudget = (budget: string, rule: BudgetRule) => Promise<number>;

/**
 * Highest first: a sign of life, a reply's first text, its final text, then edits nobody waits
 * for, then `spare` calls (a Stop button beside a reply), made only from a budget that is whole
 * while at most one first post is awaited on it (the reply's own).
 */
export type CallPriority = 'ack' | 'first' | 'final' | 'edit' | 'spare';

const PRIORITY_ORDER: Record<CallPriority, number> = { ack: 0, first: 1, final: 2, edit: 3, spare: 4 };

export interface ScheduledCall<T> {
  /** Which budget the call spends, e.g. `post:C123` or `chat.update`; or every budget it spends. */
  budget: string | readonly string[];
  priority: CallPriority;
  /** Intermediate edits of one message share a key: a waiting one is replaced by a newer one. */
  coalesceKey?: string;
  /** Invoked when the call's turn comes, so it can carry the newest text (a reply folds into one post). */
  call: () => Promise<T>;
}

export interface CallBudget {
  schedule<T>(call: ScheduledCall<T>): Promise<T>;
  /** A reply starts streaming on `budget`: edit spacing stretches with the number of open streams. Returns the close function. */
  openStream(budget: string): () => void;
  /**
   * A first post will come on `budget` (a reply that has not shown its first words yet): until the
   * returned function is called, intermediate calls there leave room for it. Idempotent release.
   */
  expectFirst(budget: string): () => void;
  /** How long a first or final call on `budget` would wait for room now (0: it has room). */
  waitMs(budget: string): number;
  /**
   * Spends `budget` now if it has room here and (with replicas) in the shared budget: resolves to 0
   * when spent, else how long it would wait, and nothing is spent. For a call that goes only if it
   * can go at once (a stream started in a turn already given on another budget).
   */
  takeNow(budget: string): Promise<number>;
  /** The current spacing of intermediate edits of one message on `budget`. */
  editSpacingMs(budget: string): number;
  /** The platform answered 429 on `budget`: nothing more goes out on it for `ms`. */
  pause(budget: string, ms: number): void;
  /** Drops the waiting call of `coalesceKey` (its callers get undefined); false when none waits (it may be running). */
  cancel(coalesceKey: string): boolean;
  /** How many calls are waiting (for tests and the benchmark). */
  readonly waiting: number;
  /** Rejects waiting calls; running ones finish. */
  stop(): void;
}

export interface CallBudgetOptions {
  /** The rule of a budget (budgets are created on first use). */
  ruleFor: (budget: string) => BudgetRule;
  /** Minimum spacing of one message's intermediate edits (the configured edit interval). */
  editIntervalMs: number;
  now?: () => number;
  /** With replicas: the same budgets kept in Redis, so that two replicas never send more than one would. */
  shared?: SharedBudget;
}

interface Job {
  budgets: readonly string[];
  /** Budgets the shared budget already granted this call (a call waiting for another is not charged twice). */
  granted: Set<string>;
  priority: CallPriority;
  coalesceKey?: string;
  call: () => Promise<unknown>;
  settle: { resolve: (value: unknown) => void; reject: (error: unknown) => void }[];
  seq: number;
}

/** The adapter stopped while the call was still waiting for its budget. */
export class CallBudgetStoppedError extends TsukaError {
  constructor() {
    super('call_budget_stopped', 'the adapter stopped before this call could be made');
  }
}

/** Part of each budget intermediate edits leave to first and final text. */
const EDIT_RESERVE_SHARE = 0.2;

export function createCallBudget(options: CallBudgetOptions): CallBudget {
  const now = options.now ?? Date.now;
  const budgets = new Map<string, BudgetState>();
  const queue: Job[] = [];
  const lastEditAt = new Map<string, number>();
  let seq = 0;
  let timer: NodeJS.Timeout | undefined;
  let timerAt = Infinity;
  let stopped = false;

  const stateOf = (budget: string): BudgetState => {
    let state = budgets.get(budget);
    if (!state) {
      state = newBudgetState(options.ruleFor(budget), now());
      budgets.set(budget, state);
    }
    return state;
  };

  const editSpacingMs = (budget: string): number => {
    const state = stateOf(budget);
    // Every open stream gets a fair share of the budget's steady rate, never more often than configured.
    return Math.max(options.editIntervalMs, Math.ceil(state.streams * periodMs(state.rule)));
  };

  const wake = (at: number): void => {
    if (stopped || at >= timerAt) return;
    if (timer) clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(
      () => {
        timer = undefined;
        timerAt = Infinity;
        pump();
      },
      Math.max(0, at - now()),
    );
  };

  /** Waiting edits: the message whose last call went out longest ago first, so streams share a short budget in turn. */
  const lastCallOf = (job: Job): number => (job.priority === 'edit' ? (lastEditAt.get(job.coalesceKey ?? '') ?? -Infinity) : 0);

  /** When `job` may go on `budget` (`time` or earlier: now); a first or final text that must wait there blocks the budget. */
  function readyAt(job: Job, budget: string, time: number, blocked: Set<string>): number {
    const { available, capacity, nextAt } = roomOf(stateOf(budget), time);
    if (job.priority === 'spare') return available >= capacity && stateOf(budget).expected <= 1 ? time : nextAt;
    if (job.priority === 'edit') {
      const due = (lastEditAt.get(job.coalesceKey ?? '') ?? -Infinity) + editSpacingMs(budget);
      if (due > time) return due;
      const reserve = Math.max(capacity > 1 ? Math.max(1, Math.floor(capacity * EDIT_RESERVE_SHARE)) : 0, stateOf(budget).expected);
      return available <= reserve ? nextAt : time;
    }
    if (available >= 1) return time;
    // Higher-priority calls wait in order: nothing behind them on this budget may overtake.
    blocked.add(budget);
    return nextAt;
  }

  let unsorted = false;
  function pump(): void {
    if (stopped) return;
    const time = now();
    // Sorted again only when the order may have changed: a call added or raised, an edit sent.
    if (unsorted) queue.sort((a, b) => PRIORITY_ORDER[a.priority] - PRIORITY_ORDER[b.priority] || lastCallOf(a) - lastCallOf(b) || a.seq - b.seq);
    unsorted = false;
    let nextWake = Infinity;
    const blocked = new Set<string>();
    for (let index = 0; index < queue.length; index++) {
      const job = queue[index]!;
      if (job.budgets.some((budget) => blocked.has(budget))) continue;
      // A budget the shared one already granted this call is spent: the call waits only for the others.
      const pending = job.budgets.filter((budget) => !job.granted.has(budget));
      const at = Math.max(time, ...pending.map((budget) => readyAt(job, budget, time, blocked)));
      if (at > time) {
        nextWake = Math.min(nextWake, at);
        continue;
      }
      for (const budget of pending) spendOn(stateOf(budget), time);
      queue.splice(index, 1);
      index--;
      if (job.coalesceKey !== undefined) {
        lastEditAt.set(job.coalesceKey, time);
        unsorted = true;
      }
      if (options.shared) void askShared(job);
      else run(job);
    }
    if (nextWake < Infinity) wake(nextWake);
  }

  /**
   * The shared bucket keeps one call of its burst in reserve: between the shared grant and the
   * platform there is one more hop (Redis) whose delay differs per replica, so arrivals bunch more.
   */
  const sharedRule = (rule: BudgetRule): BudgetRule => (rule.kind === 'bucket' ? { ...rule, capacity: Math.max(1, rule.capacity - 1) } : rule);

  /** One shared budget, asked once: 0 when granted, else the wait (and this replica's budget waits too). */
  async function askOne(budget: string): Promise<number> {
    const state = stateOf(budget);
    // Redis unreachable: this replica's own budget still holds (the platform's 429 handling stays beneath).
    const wait = await options.shared!(budget, sharedRule(state.rule)).catch(() => 0);
    // Another replica spent it: the budget waits here too.
    if (wait > 0) state.pausedUntil = Math.max(state.pausedUntil, now() + wait);
    return wait;
  }

  /**
   * This replica's budget let the call through; the shared one has the last word. Its budgets are
   * asked in turn and the first that says wait ends the round: those after it are not charged for a
   * call that does not go, those before it stay granted to this call (never asked again for it), and
   * this replica gets back the room it spent on the ones not granted.
   */
  async function askShared(job: Job): Promise<void> {
    const pending = job.budgets.filter((budget) => !job.granted.has(budget));
    let waitMs = 0;
    for (const [index, budget] of pending.entries()) {
      waitMs = await askOne(budget);
      if (waitMs <= 0) {
        job.granted.add(budget);
        continue;
      }
      for (const refunded of pending.slice(index)) refundOn(stateOf(refunded));
      break;
    }
    if (waitMs <= 0 || stopped) {
      if (stopped) job.settle.forEach((waiter) => waiter.reject(new CallBudgetStoppedError()));
      else run(job);
      return;
    }
    // The call keeps its place (priority, sequence).
    queue.push(job);
    unsorted = true;
    wake(now() + waitMs);
  }

  function run(job: Job): void {
    job.call().then(
      (value) => job.settle.forEach((waiter) => waiter.resolve(value)),
      (error: unknown) => job.settle.forEach((waiter) => waiter.reject(error)),
    );
  }

  return {
    schedule<T>(scheduled: ScheduledCall<T>): Promise<T> {
      if (stopped) return Promise.reject(new CallBudgetStoppedError());
      return new Promise<T>((resolve, reject) => {
        const waiter = { resolve: resolve as (value: unknown) => void, reject };
        const budgets = typeof scheduled.budget === 'string' ? [scheduled.budget] : [...scheduled.budget];
        const waiting =
          scheduled.coalesceKey === undefined
            ? undefined
            : queue.find((job) => job.coalesceKey === scheduled.coalesceKey && job.budgets.join('\n') === budgets.join('\n'));
        if (waiting) {
          // The newest text wins; the call keeps the higher of the two priorities and its place.
          waiting.call = scheduled.call;
          if (PRIORITY_ORDER[scheduled.priority] < PRIORITY_ORDER[waiting.priority]) {
            waiting.priority = scheduled.priority;
            unsorted = true;
          }
          waiting.settle.push(waiter);
        } else {
          unsorted = true;
          queue.push({
            budgets,
            granted: new Set(),
            priority: scheduled.priority,
            coalesceKey: scheduled.coalesceKey,
            call: scheduled.call,
            settle: [waiter],
            seq: seq++,
          });
        }
        pump();
      });
    },
    openStream(budget) {
      const state = stateOf(budget);
      state.streams++;
      let open = true;
      return () => {
        if (open) state.streams--;
        open = false;
      };
    },
    expectFirst(budget) {
      const state = stateOf(budget);
      state.expected++;
      let waiting = true;
      return () => {
        if (waiting) state.expected--;
        waiting = false;
        pump();
      };
    },
    waitMs(budget) {
      const time = now();
      const { available, nextAt } = roomOf(stateOf(budget), time);
      return available >= 1 ? 0 : Math.max(0, nextAt - time);
    },
    async takeNow(budget) {
      const state = stateOf(budget);
      const time = now();
      const { available, nextAt } = roomOf(state, time);
      if (stopped || available < 1) return Math.max(1, nextAt - time);
      spendOn(state, time);
      if (!options.shared) return 0;
      const wait = await askOne(budget);
      if (wait > 0) refundOn(state);
      return wait;
    },
    editSpacingMs,
    pause(budget, ms) {
      pauseState(stateOf(budget), now(), ms);
      pump();
    },
    cancel(coalesceKey) {
      const index = queue.findIndex((job) => job.coalesceKey === coalesceKey);
      if (index < 0) return false;
      const [job] = queue.splice(index, 1);
      job!.settle.forEach((waiter) => waiter.resolve(undefined));
      return true;
    },
    get waiting() {
      return queue.length;
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      for (const job of queue.splice(0)) job.settle.forEach((waiter) => waiter.reject(new CallBudgetStoppedError()));
    },
  };
}
