import { describe, expect, it } from 'vitest';
import { admitTurn } from '../../../src/commands/turns/turn-admission.js';

/** Counts event-loop iterations (one `setImmediate` each) until `stop` says so. */
function countIterations(): { current: () => number; stop: () => void } {
  let iteration = 0;
  let running = true;
  const next = (): void => {
    if (!running) return;
    iteration += 1;
    setImmediate(next);
  };
  setImmediate(next);
  return { current: () => iteration, stop: () => (running = false) };
}

describe('turn admission', () => {
  it('sets up a burst of 200 turns one per loop iteration, in order of arrival (the loop is not held by all of them at once)', async () => {
    const loop = countIterations();
    const admitted: { turn: number; iteration: number }[] = [];
    await Promise.all(Array.from({ length: 200 }, (_, turn) => admitTurn().then(() => void admitted.push({ turn, iteration: loop.current() }))));
    loop.stop();
    expect(admitted.map((entry) => entry.turn)).toEqual(Array.from({ length: 200 }, (_, turn) => turn));
    // No two turns begin in the same iteration: timers and I/O get their turn between set-ups.
    expect(new Set(admitted.map((entry) => entry.iteration)).size).toBe(200);
  });

  it('admits a lone turn at once, on the next iteration', async () => {
    await expect(admitTurn()).resolves.toBeUndefined();
  });
});
