/**
 * CLI start-up benchmark (not a test): the time from spawning `tsuka ask` to its first model request,
 * against the scripted model server on 127.0.0.1. Runs the direct command a checkout offers after
 * `npm install` (`./tsuka`, the launcher at the root, as a person types it; `--via=node` runs
 * `node bin/tsuka.js` instead) several times and prints the median and the best next to the 400 ms
 * goal (issue 27; 600 ms in issue 14). The runs share one data folder (the first one fills it:
 * checked data recorded, store created), or with `--fresh` each run gets a new one. Run:
 * `npx tsx bench/cli-startup-bench.ts [runs] [--fresh] [--via=node]` (after `npm run build`; without
 * a current build it measures the sources through tsx).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startScriptedModelServer } from '../tests/support/scripted-model-server.js';
import { benchSize } from './bench-size.js';

const GOAL_MS = 400;
const FRESH = process.argv.includes('--fresh');
const VIA_NODE = process.argv.includes('--via=node');
const RUNS = Number(process.argv.slice(2).find((arg) => !arg.startsWith('--')) ?? benchSize(7, 1));
const ROOT = resolve(import.meta.dirname, '..');
const ARGUMENTS = ['ask', 'geordi', 'say hello'];
const [PROGRAM, COMMAND, SHOWN] = VIA_NODE
  ? [process.execPath, [join(ROOT, 'bin/tsuka.js'), ...ARGUMENTS], 'node bin/tsuka.js ask']
  : [join(ROOT, 'tsuka'), ARGUMENTS, './tsuka ask'];

const server = await startScriptedModelServer();
const home = await mkdtemp(join(tmpdir(), 'tsuka-cli-bench-'));
const timings: number[] = [];
const cpuTimings: number[] = [];
/** CPU time a process has used so far (user + system), from /proc: unlike wall time, it does not stretch with the machine's load. */
function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}
try {
  for (let run = 0; run < RUNS; run += 1) {
    server.enqueue({ text: 'hello' });
    const before = server.requests.length;
    const started = performance.now();
    const child = spawn(PROGRAM, COMMAND, {
      cwd: home,
      env: {
        PATH: process.env.PATH,
        HOME: home,
        TSUKA_LLM_BASE_URL: server.baseURL,
        TSUKA_DATA_DIR: join(home, FRESH ? `data-${run}` : 'data'),
        TSUKA_WORKSPACE: join(home, 'workspace'),
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // The launcher execs node: same process, so /proc shows node's CPU time.
    const exited = new Promise<number | null>((done) => child.on('exit', done));
    await Promise.race([server.waitForRequests(before + 1), exited]);
    if (server.requests.length <= before) throw new Error(`tsuka ask made no model request:\n${stderr}`);
    timings.push(performance.now() - started);
    cpuTimings.push(cpuMsOf(child.pid!));
    const status = await exited;
    if (status !== 0) throw new Error(`tsuka ask exited ${status}:\n${stderr}`);
  }
} finally {
  await server.close();
  await rm(home, { recursive: true, force: true });
}
timings.sort((a, b) => a - b);
cpuTimings.sort((a, b) => a - b);
const median = timings[Math.floor(timings.length / 2)] ?? Number.NaN;
const cpuMedian = cpuTimings[Math.floor(cpuTimings.length / 2)] ?? Number.NaN;
console.log(
  `cli: \`${SHOWN}\` → first model request, ${RUNS} runs${FRESH ? ', each with a new data folder' : ''} (load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores): ` +
    `median ${median.toFixed(0)} ms, best ${timings[0]?.toFixed(0)} ms, worst ${timings.at(-1)?.toFixed(0)} ms; CPU used by then: median ${cpuMedian.toFixed(0)} ms — ` +
    `goal ≤ ${GOAL_MS} ms: ${median <= GOAL_MS ? 'met' : 'MISSED'}`,
);
