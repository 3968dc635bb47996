/**
 * `npm run bench:smoke` (issue 37/42): every bench once, each in its own process at a tiny size
 * (`BENCH_SMOKE=1`), so a bench that hangs or throws fails CI. No figure is judged here: a bench
 * passes when it exits 0 within its time limit, whatever it printed.
 */
import { spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

const BENCH_DIR = import.meta.dirname;
const TSX_CLI = join(BENCH_DIR, '..', 'node_modules', 'tsx', 'dist', 'cli.mjs');
/** A bench at its smoke size finishes in seconds; this is the line for "it hangs". */
const LIMIT_MS = 180_000;
/** Files in bench/ that are helpers or runners, not benches. */
const NOT_BENCHES = new Set(['bench-size.ts', 'cpu-profile-window.ts', 'run-all.ts', 'smoke.ts']);

interface Outcome {
  name: string;
  ok: boolean;
  ms: number;
  why?: string;
}

function runBench(name: string): Promise<Outcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [TSX_CLI, join(BENCH_DIR, name)], {
      env: { ...process.env, BENCH_SMOKE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let tail = '';
    const keep = (chunk: Buffer) => {
      process.stdout.write(chunk);
      tail = (tail + chunk.toString()).slice(-2_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => child.kill('SIGKILL'), LIMIT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const ms = performance.now() - started;
      if (code === 0) resolve({ name, ok: true, ms });
      else
        resolve({
          name,
          ok: false,
          ms,
          why: signal === 'SIGKILL' ? `did not finish in ${LIMIT_MS / 1000} s` : `exit ${code ?? signal}: ${tail.trim().split('\n').at(-1) ?? ''}`,
        });
    });
  });
}

const only = process.argv.slice(2);
const names = (await readdir(BENCH_DIR))
  .filter((name) => name.endsWith('-bench.ts') && !NOT_BENCHES.has(name))
  .filter((name) => only.length === 0 || only.some((part) => name.includes(part)));
const outcomes: Outcome[] = [];
for (const name of names.sort()) {
  process.stdout.write(`\n── ${name} (smoke) ──\n`);
  outcomes.push(await runBench(name));
}
process.stdout.write('\nbench smoke:\n');
for (const outcome of outcomes)
  process.stdout.write(`  ${outcome.ok ? 'ok  ' : 'FAIL'} ${outcome.name} ${(outcome.ms / 1000).toFixed(1)} s${outcome.why ? ` — ${outcome.why}` : ''}\n`);
const failed = outcomes.filter((outcome) => !outcome.ok).length;
process.stdout.write(`${outcomes.length - failed} of ${outcomes.length} benches finished\n`);
process.exitCode = failed === 0 ? 0 : 1;
