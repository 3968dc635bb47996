/**
 * Coalesces an MCP server's `notifications/tools/list_changed` (issue 29: a flood of them withdrew
 * the server): one refresh in flight, at most one queued, each a short delay after it was asked for.
 */

export interface RefreshCoalescer {
  request(run: () => Promise<void>): void;
  cancel(): void;
}

/**
 * Runs refreshes one at a time: a request while one is waiting is dropped, a request while one runs
 * queues exactly one more; each starts `debounceMs` after the request that scheduled it (so requests
 * in between join it, and a steady flood still gets refreshed). `run` handles its own errors.
 */
export function createRefreshCoalescer(debounceMs: number): RefreshCoalescer {
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let queued: (() => Promise<void>) | undefined;
  const schedule = (run: () => Promise<void>): void => {
    timer = setTimeout(() => {
      timer = undefined;
      running = true;
      void run().finally(() => {
        running = false;
        const next = queued;
        queued = undefined;
        if (next && timer === undefined) schedule(next);
      });
    }, debounceMs);
    timer.unref?.();
  };
  return {
    request(run) {
      if (running) queued = run;
      else if (timer === undefined) schedule(run);
    },
    cancel() {
      if (timer) clearTimeout(timer);
      timer = undefined;
      queued = undefined;
    },
  };
}
