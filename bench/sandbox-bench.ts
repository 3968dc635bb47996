/**
 * Per-command overhead of the bubblewrap sandbox (not a test): `true` run RUNS times through the
 * process runner, once with the declared fallback (plain `/bin/sh -c`) and once under bwrap, the
 * same layout every agent command gets. Run: `npx tsx bench/sandbox-bench.ts`.
 * Target: ≤ 50 ms added per command (an agent command is typically a build or a test: seconds).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createBubblewrapSandbox } from '../src/core/safety/bubblewrap-sandbox.js';
import type { CommandSandbox } from '../src/core/safety/command-sandbox.js';
import { createFallbackSandbox } from '../src/core/safety/fallback-sandbox.js';
import { runCommand } from '../src/core/safety/process-runner.js';
import { probeSandbox } from '../src/core/safety/select-sandbox.js';
import { benchSize } from './bench-size.js';

const RUNS = benchSize(50, 2);
const OVERHEAD_TARGET_MS = 50;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

async function measure(sandbox: CommandSandbox, root: string): Promise<{ mean: number; p95: number }> {
  const env = { PATH: '/usr/bin:/bin' };
  await runCommand({ command: 'true', cwd: root, sandbox, env, timeoutMs: 10_000 }); // warm-up
  const durations: number[] = [];
  for (let index = 0; index < RUNS; index++) {
    const started = performance.now();
    const result = await runCommand({ command: 'true', cwd: root, sandbox, env, timeoutMs: 10_000 });
    if (result.exitCode !== 0) throw new Error(`true failed: ${result.output}`);
    durations.push(performance.now() - started);
  }
  return { mean: durations.reduce((sum, value) => sum + value, 0) / RUNS, p95: percentile(durations, 95) };
}

const root = await mkdtemp(path.join(os.tmpdir(), 'tsuka-sandbox-bench-'));
try {
  const bubblewrap = createBubblewrapSandbox({ network: true, hiddenPaths: [] });
  const unavailable = await probeSandbox(bubblewrap);
  const plain = await measure(createFallbackSandbox(), root);
  console.log(`sandbox: \`true\` ×${RUNS} without bwrap: mean ${plain.mean.toFixed(1)} ms, p95 ${plain.p95.toFixed(1)} ms`);
  if (unavailable) {
    console.log(`sandbox: bwrap does not work here (${unavailable}); nothing to compare`);
  } else {
    const sandboxed = await measure(bubblewrap, root);
    const networkOff = await measure(createBubblewrapSandbox({ network: false, hiddenPaths: [] }), root);
    const overhead = sandboxed.mean - plain.mean;
    console.log(`sandbox: \`true\` ×${RUNS} under bwrap (network on): mean ${sandboxed.mean.toFixed(1)} ms, p95 ${sandboxed.p95.toFixed(1)} ms`);
    console.log(`sandbox: \`true\` ×${RUNS} under bwrap (network off): mean ${networkOff.mean.toFixed(1)} ms, p95 ${networkOff.p95.toFixed(1)} ms`);
    console.log(
      `sandbox: overhead per command ${overhead.toFixed(1)} ms (network off: ${(networkOff.mean - plain.mean).toFixed(1)} ms) — goal ≤ ${OVERHEAD_TARGET_MS} ms: ${overhead <= OVERHEAD_TARGET_MS ? 'met' : 'NOT met'}`,
    );
  }
} finally {
  await rm(root, { recursive: true, force: true });
}
