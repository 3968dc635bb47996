/**
 * The playground has no platform rate limit: edits are already coalesced by the reply renderer to
 * `editIntervalMs`, and the page is local. What is limited is input, so that a runaway script in
 * the browser cannot flood the command layer: a fixed window of requests per second.
 */
export const PLAYGROUND_MAX_INPUTS_PER_SECOND = 20;

export interface InputLimiter {
  /** True when one more request fits in the current window. */
  tryTake(): boolean;
}

export function createInputLimiter(maxPerSecond = PLAYGROUND_MAX_INPUTS_PER_SECOND, now: () => number = Date.now): InputLimiter {
  let windowStart = 0;
  let used = 0;
  return {
    tryTake() {
      const time = now();
      if (time - windowStart >= 1000) {
        windowStart = time;
        used = 0;
      }
      if (used >= maxPerSecond) return false;
      used++;
      return true;
    },
  };
}
