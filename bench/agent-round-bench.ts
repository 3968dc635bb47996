/**
 * Per-tool-round overhead benchmark (not a test): a 15-round turn through the command layer (real
 * engine and tools, SQLite store, in-memory surface), twice: with the in-process scripted model
 * (the harness alone), and with the real OpenAI-compatible provider against the scripted model
 * server over HTTP (harness + provider; the server runs in this process, so its own work counts
 * too: an upper bound). The time between two model requests is the harness plus the tool; the
 * tool's own work is timed around `tools.execute` and taken out. Goal (issue 14): ≤ 3 ms per round
 * beyond the tool's work. Run: `npx tsx bench/agent-round-bench.ts [turns] [--only=http|in-process]
 * [--profile=<file>]` (`--profile`: a CPU profile of the HTTP model's measured turns).
 */
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callTool, say, type ScriptedStep } from '../src/core/model/scripted-model.js';
import { createOpenAICompatibleModel } from '../src/core/provider/openai-compatible-model.js';
import { startScriptedModelServer } from '../tests/support/scripted-model-server.js';
import { startCommandHarness } from '../tests/support/command-harness.js';
import { profileFileArgument, startWindowProfile } from './cpu-profile-window.js';
import { benchSize } from './bench-size.js';

const ROUNDS = 15;
const GOAL_MS = 3;
const positional = process.argv.slice(2).filter((argument) => !argument.startsWith('--'));
const TURNS = Number(positional[0] ?? benchSize(5, 1));
/** `--profile=<file>`: a CPU profile of the HTTP model's measured turns. */
const PROFILE_FILE = profileFileArgument();
/** `--only=http` or `--only=in-process`: one mode alone. */
const ONLY = process.argv.find((argument) => argument.startsWith('--only='))?.slice('--only='.length);
const FINAL_TEXT = 'All fifteen listings done.';

const home = await mkdtemp(join(tmpdir(), 'tsuka-round-bench-'));
const workspace = join(home, 'workspace');
await mkdir(workspace, { recursive: true });
for (let index = 0; index < 20; index += 1) await writeFile(join(workspace, `file-${index}.txt`), `line ${index}\n`.repeat(50));

/** Request times of the current turn, and the process's CPU time (µs) at each. */
let requestTimes: number[] = [];
let requestCpu: number[] = [];
const mark = (): void => {
  requestTimes.push(performance.now());
  const cpu = process.cpuUsage();
  requestCpu.push(cpu.user + cpu.system);
};

async function bench(mode: 'in-process' | 'http'): Promise<void> {
  const server = mode === 'http' ? await startScriptedModelServer() : undefined;
  const steps: ScriptedStep[] = [];
  // One warm-up turn (lazy compiles, first writes), then the measured ones.
  for (let turn = 0; turn < TURNS + 1; turn += 1) {
    for (let round = 0; round < ROUNDS; round += 1) {
      const path = `file-${round}.txt`;
      if (server) {
        server.enqueue(() => {
          mark();
          return { toolCalls: [{ name: 'read_file', arguments: { path } }] };
        });
      } else {
        steps.push(() => {
          mark();
          return callTool('read_file', { path });
        });
      }
    }
    if (server) {
      server.enqueue(() => {
        mark();
        return { text: FINAL_TEXT };
      });
    } else {
      steps.push(() => {
        mark();
        return say(FINAL_TEXT);
      });
    }
  }
  const model = server ? createOpenAICompatibleModel({ providerId: 'scripted', baseURL: server.baseURL, modelId: 'scripted-model-7b' }) : undefined;
  const harness = await startCommandHarness({
    steps,
    model,
    environment: {
      TSUKA_STORE_URL: `sqlite://${join(home, `data-${mode}`, 'tsuka.sqlite')}`,
      TSUKA_WORKSPACE: workspace,
      TSUKA_MAX_TOOL_ROUNDS: String(ROUNDS + 1),
      TSUKA_USER_EVENTS_PER_MINUTE: '10000',
    },
  });
  let toolMs = 0;
  const execute = harness.engine.tools.execute.bind(harness.engine.tools);
  harness.engine.tools.execute = async (name, input, context) => {
    const started = performance.now();
    try {
      return await execute(name, input, context);
    } finally {
      toolMs += performance.now() - started;
    }
  };

  const perRound: number[] = [];
  const wholeTurn: number[] = [];
  const cpuPerRound: number[] = [];
  let stopProfile: (() => Promise<void>) | undefined;
  try {
    for (let turn = 0; turn < TURNS + 1; turn += 1) {
      if (turn === 1 && mode === 'http' && PROFILE_FILE) stopProfile = await startWindowProfile(PROFILE_FILE);
      requestTimes = [];
      requestCpu = [];
      toolMs = 0;
      const message = `bench-${mode}-${turn}`;
      const started = performance.now();
      await harness.mention(`geordi read the fifteen files (${turn})`, { message });
      await harness.surface.waitFor(
        () => harness.surface.inThread(`thread:${message}`).some((posted) => posted.text.includes(FINAL_TEXT) && posted.buttons.length === 0),
        60_000,
      );
      const total = performance.now() - started;
      if (requestTimes.length !== ROUNDS + 1) throw new Error(`expected ${ROUNDS + 1} model requests, saw ${requestTimes.length}`);
      if (turn === 0) continue;
      perRound.push((requestTimes.at(-1)! - requestTimes[0]! - toolMs) / ROUNDS);
      cpuPerRound.push((requestCpu.at(-1)! - requestCpu[0]!) / 1000 / ROUNDS);
      wholeTurn.push((total - toolMs) / ROUNDS);
    }
  } finally {
    await stopProfile?.();
    await harness.stop();
    await server?.close();
  }
  perRound.sort((a, b) => a - b);
  wholeTurn.sort((a, b) => a - b);
  cpuPerRound.sort((a, b) => a - b);
  const median = perRound[Math.floor(perRound.length / 2)]!;
  console.log(
    `agent (${mode} model): ${ROUNDS}-round turn of read_file, harness per round beyond the tool: median ${median.toFixed(2)} ms ` +
      `(best ${perRound[0]!.toFixed(2)} ms, ${TURNS} turns; whole turn incl. run record, placeholder, session save: ${wholeTurn[Math.floor(wholeTurn.length / 2)]!.toFixed(2)} ms per round; CPU of the whole process, tool included: ${cpuPerRound[Math.floor(cpuPerRound.length / 2)]!.toFixed(2)} ms per round) — ` +
      `goal ≤ ${GOAL_MS} ms: ${median <= GOAL_MS ? 'met' : 'MISSED'}`,
  );
}

try {
  if (ONLY !== 'http') await bench('in-process');
  if (ONLY !== 'in-process') await bench('http');
} finally {
  await rm(home, { recursive: true, force: true });
}
