/**
 * Several model servers benchmark (not a test): 8 generations at once through the generation queue
 * (the engine's connection: endpoint models, slot pool, health), one generation at a time per
 * server, on scripted OpenAI-compatible servers that stream at a fixed pace (50 tokens, one per
 * 10 ms, ~100 tokens/s). Wall time with one server, then with two.
 * Goal (issue 13): two servers take ≤ 55 % of one server's time (≥ 1.8× throughput).
 * Run: `npx tsx bench/model-servers-bench.ts [generations]`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectModelServer, findModelServer } from '../src/app/model-connection.js';
import { createLocalCoordination } from '../src/core/coordination/local-coordination.js';
import { silentLogger } from '../src/core/logger.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../tests/support/scripted-model-server.js';
import { testAppConfig } from '../tests/support/test-app-config.js';
import { benchSize } from './bench-size.js';

const GENERATIONS = Number(process.argv[2] ?? benchSize(8, 2));
const TOKENS = 50;
const TOKEN_INTERVAL_MS = 10;
const GOAL_RATIO = 0.55;

const home = await mkdtemp(join(tmpdir(), 'tsuka-servers-bench-'));
const servers: ScriptedModelServer[] = [
  await startScriptedModelServer({ modelId: 'bench-model:7b' }),
  await startScriptedModelServer({ modelId: 'bench-model:7b' }),
];

/** Wall time of GENERATIONS generations at once over the first `count` servers. */
async function wallTime(count: number): Promise<number> {
  const used = servers.slice(0, count);
  // Enough paced replies for every generation on any server (the last round leaves some unused).
  for (const server of used)
    for (let index = 0; index < GENERATIONS; index += 1) server.enqueue({ text: 'tok '.repeat(TOKENS), chunkSize: 4, delayMsBetweenChunks: TOKEN_INTERVAL_MS });
  const config = testAppConfig(home, used.map((server) => server.baseURL).join(','), { TSUKA_LLM_CONCURRENCY: '1' });
  const coordination = createLocalCoordination();
  const found = await findModelServer(config, { logger: silentLogger });
  if (!found) throw new Error('the scripted servers did not answer');
  const { model } = await connectModelServer(config, found, { logger: silentLogger, slots: coordination.slots });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: GENERATIONS }, async () => {
      for await (const part of model.stream({ messages: [{ role: 'user', content: 'go' }] })) void part;
    }),
  );
  const elapsed = performance.now() - started;
  await coordination.close();
  return elapsed;
}

try {
  const one = await wallTime(1);
  const two = await wallTime(2);
  const ratio = two / one;
  const ideal = (GENERATIONS * TOKENS * TOKEN_INTERVAL_MS) / 1000;
  console.log(
    `model servers: ${GENERATIONS} generations at once, ${TOKENS} tokens at ~${Math.round(1000 / TOKEN_INTERVAL_MS)} tok/s, one at a time per server ` +
      `(load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores): 1 server ${(one / 1000).toFixed(2)} s (pacing alone ${ideal.toFixed(1)} s), ` +
      `2 servers ${(two / 1000).toFixed(2)} s — ${(one / two).toFixed(2)}× throughput, ratio ${ratio.toFixed(2)} (goal ≤ ${GOAL_RATIO}: ${ratio <= GOAL_RATIO ? 'met' : 'MISSED'})`,
  );
} finally {
  await Promise.all(servers.map((server) => server.close()));
  await rm(home, { recursive: true, force: true });
}
