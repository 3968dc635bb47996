/**
 * Event-driven waiting: predicates are re-checked each time the emulator records something
 * (a call, an ack, a connection), never on a polling timer.
 */

/** Options of a wait. */
export interface WaitOptions {
  /** Default 5000. */
  timeoutMs?: number;
  /** Named in the timeout error, to say what was expected. */
  description?: string;
}

/** Holds the pending waits and wakes them on every change. */
export interface ChangeWaiter {
  /** Resolves when `check` returns true (checked now and after every change). */
  wait(check: () => boolean, options: WaitOptions, describeState: () => string): Promise<void>;
  /** Re-checks every pending wait. */
  changed(): void;
  /** Rejects every pending wait (the emulator is closing). */
  cancelAll(reason: string): void;
}

interface Waiter {
  check: () => boolean;
  resolve: () => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export const DEFAULT_WAIT_TIMEOUT_MS = 5_000;

/** Creates a waiter set. */
export function createChangeWaiter(): ChangeWaiter {
  const waiters = new Set<Waiter>();

  const settle = (waiter: Waiter, error?: Error) => {
    clearTimeout(waiter.timer);
    waiters.delete(waiter);
    if (error) waiter.reject(error);
    else waiter.resolve();
  };

  const evaluate = (waiter: Waiter) => {
    try {
      if (waiter.check()) settle(waiter);
    } catch (error) {
      settle(waiter, new Error(`The waitFor predicate threw: ${String(error)}`, { cause: error }));
    }
  };

  return {
    wait(check, options, describeState) {
      return new Promise<void>((resolve, reject) => {
        const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
        const waiter: Waiter = {
          check,
          resolve,
          reject,
          timer: setTimeout(() => {
            const what = options.description ? ` for ${options.description}` : '';
            settle(waiter, new Error(`Timed out after ${timeoutMs} ms waiting${what}.\n${describeState()}`));
          }, timeoutMs),
        };
        waiters.add(waiter);
        evaluate(waiter);
      });
    },
    changed() {
      for (const waiter of [...waiters]) evaluate(waiter);
    },
    cancelAll(reason) {
      for (const waiter of [...waiters]) settle(waiter, new Error(reason));
    },
  };
}
