/**
 * One size switch for every bench: `BENCH_SMOKE=1` (set by `npm run bench:smoke`) runs each bench once
 * at a tiny size, so CI sees a bench that no longer finishes; the figures it prints then mean nothing.
 */
export const SMOKE = process.env.BENCH_SMOKE === '1';

/** The bench's real size, or its smoke size under `BENCH_SMOKE=1`. */
export function benchSize(full: number, smoke: number): number {
  return SMOKE ? smoke : full;
}
