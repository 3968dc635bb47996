/**
 * Fault windows for the emulator's Web API: for a time, chosen methods answer HTTP 5xx (Slack's
 * outages) or 429 with a fixed `Retry-After`, whatever the rate limiter thinks — the flaky-platform
 * half of issue 17's probe.
 */

/** One window: `methods` answer `status` from now for `durationMs`. */
export interface FaultWindow {
  methods: readonly string[];
  status: 429 | 500 | 502 | 503;
  durationMs: number;
  /** For 429: the Retry-After header in seconds (default 1). */
  retryAfterSeconds?: number;
  /** Answer only this many calls, then let the rest through while the window lasts (default: every call). */
  times?: number;
}

/** A call answered by a fault window. */
export interface FaultedCall {
  method: string;
  status: number;
  at: number;
}

export interface FaultInjector {
  /** Opens a window now; returns when it ends (epoch ms). */
  open(window: FaultWindow): { endsAt: number };
  /** The window a call to `method` falls in now, if any; the call counts against its `times`. */
  active(method: string): FaultWindow | undefined;
  record(call: FaultedCall): void;
  /** Ends every open window now (a test sharing the emulator starts without the last one's). */
  clear(): void;
  readonly faulted: readonly FaultedCall[];
}

export function createFaultInjector(now: () => number = Date.now): FaultInjector {
  const windows: (FaultWindow & { endsAt: number; answered: number })[] = [];
  const faulted: FaultedCall[] = [];
  return {
    open(window) {
      const endsAt = now() + window.durationMs;
      windows.push({ ...window, endsAt, answered: 0 });
      return { endsAt };
    },
    active(method) {
      const time = now();
      const found = windows.find(
        (window) => window.endsAt > time && window.methods.includes(method) && (window.times === undefined || window.answered < window.times),
      );
      if (found) found.answered += 1;
      return found;
    },
    record: (call) => faulted.push(call),
    clear: () => void windows.splice(0),
    faulted,
  };
}

/** The answer Slack gives in a window: 429 with Retry-After, or a 5xx with a JSON error body. */
export function faultAnswer(window: FaultWindow): { status: number; headers: Record<string, string>; body: Record<string, unknown> } {
  if (window.status === 429)
    return { status: 429, headers: { 'retry-after': String(window.retryAfterSeconds ?? 1) }, body: { ok: false, error: 'ratelimited' } };
  return { status: window.status, headers: {}, body: { ok: false, error: 'internal_error' } };
}
