/**
 * Store benchmark (not a test): recall over 10,000 facts in one scope, appending 10,000 run events,
 * and opening a store that holds 100 runs of 1,000 events. Run: `npx tsx bench/store-bench.ts`.
 * Targets on the reference machine: recall p95 ≤ 10 ms; ≥ 2,000 appended events/s.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryStore } from '../src/core/memory/memory-store.js';
import { createApprovalStore } from '../src/core/store/approval-store.js';
import { createApprovalSigner } from '../src/core/store/approval-signature.js';
import { openStore } from '../src/core/store/open-store.js';
import { recoverAfterRestart } from '../src/core/store/recover-after-restart.js';
import { createRunStore } from '../src/core/store/run-store.js';
import { benchSize } from './bench-size.js';

const FACTS = benchSize(10_000, 200);
const QUERIES = benchSize(500, 10);
const EVENTS = benchSize(10_000, 200);
const RUNS = benchSize(100, 4);
const EVENTS_PER_RUN = benchSize(1_000, 20);
const RECALL_P95_TARGET_MS = 10;
const APPEND_TARGET_PER_S = 2_000;
const SCOPE = '/bench/workspace';

const WORDS = (
  'api auth build cache ci cluster config container cron database deploy docker endpoint env feature flag gateway ' +
  'git grafana header helm index ingress job kafka key lambda latency lint load log metric migration monitor node ' +
  'nginx oauth pipeline pod port postgres proxy queue rate redis release replica retry role route schema secret ' +
  'service session shard smoke snapshot ssl staging storage stream sync table tenant terraform test timeout token ' +
  'topic trace upload user vault version volume webhook worker yaml zone backup budget canary payment invoice'
).split(' ');

let seed = 42;
function random(): number {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
  return seed / 2_147_483_648;
}
const word = (): string => WORDS[Math.floor(random() * WORDS.length)] ?? 'api';
const phrase = (count: number): string => Array.from({ length: count }, word).join(' ');

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}
const ms = (value: number): string => `${value.toFixed(2)} ms`;
const verdict = (ok: boolean): string => (ok ? 'target met' : 'TARGET MISSED');

async function benchRecall(directory: string): Promise<void> {
  const store = await openStore({ dataDirectory: directory });
  const memory = createMemoryStore({ store, maxFactsPerScope: FACTS * 2 });
  let started = performance.now();
  for (let index = 0; index < FACTS; index += 1) {
    await memory.save({ content: `Fact ${index}: the ${phrase(10)} uses ${phrase(4)}.`, scope: SCOPE, author: 'bench' });
  }
  console.log(`memory: saved ${FACTS} facts in ${ms(performance.now() - started)}`);
  await store.close();

  const reopened = await openStore({ dataDirectory: directory });
  const fresh = createMemoryStore({ store: reopened, maxFactsPerScope: FACTS * 2 });
  started = performance.now();
  await fresh.recall('warm up', { scope: SCOPE });
  console.log(`memory: first recall after open (loads and indexes the scope): ${ms(performance.now() - started)}`);
  const timings: number[] = [];
  for (let index = 0; index < QUERIES; index += 1) {
    const query = phrase(2 + (index % 3));
    const queryStarted = performance.now();
    await fresh.recall(query, { scope: SCOPE, limit: 5 });
    timings.push(performance.now() - queryStarted);
  }
  timings.sort((a, b) => a - b);
  const p95 = percentile(timings, 0.95);
  console.log(
    `memory: recall over ${FACTS} facts, ${QUERIES} queries (hits counted): p50 ${ms(percentile(timings, 0.5))}, ` +
      `p95 ${ms(p95)} — ${verdict(p95 <= RECALL_P95_TARGET_MS)} (≤ ${RECALL_P95_TARGET_MS} ms)`,
  );
  await reopened.close();
}

async function benchAppend(directory: string): Promise<void> {
  const store = await openStore({ dataDirectory: directory });
  const runs = createRunStore(store);
  const run = await runs.create({ kind: 'team', title: 'bench', startedBy: 'bench', where: { platform: 'bench', channelId: 'c' } });
  const started = performance.now();
  for (let index = 0; index < EVENTS; index += 1) {
    await runs.appendEvent(run.id, { type: 'message', agent: 'geordi', text: `step ${index}: ${phrase(20)}` });
  }
  const perSecond = EVENTS / ((performance.now() - started) / 1000);
  console.log(
    `runs: appended ${EVENTS} events one by one, each awaited: ${Math.round(perSecond)} events/s — ` +
      `${verdict(perSecond >= APPEND_TARGET_PER_S)} (≥ ${APPEND_TARGET_PER_S}/s)`,
  );
  await store.close();
}

async function benchOpen(directory: string): Promise<void> {
  const store = await openStore({ dataDirectory: directory });
  const runs = createRunStore(store);
  for (let runIndex = 0; runIndex < RUNS; runIndex += 1) {
    const run = await runs.create({ kind: 'goal', title: `run ${runIndex}`, startedBy: 'bench', where: { platform: 'bench', channelId: 'c' } });
    if (runIndex % 10 === 0) await runs.update(run.id, (record) => ({ ...record, status: 'completed' }));
    await Promise.all(Array.from({ length: EVENTS_PER_RUN }, (_, index) => runs.appendEvent(run.id, { type: 'note', text: `${index} ${phrase(12)}` })));
  }
  await store.close();
  const size = (await stat(join(directory, 'tsuka.sqlite'))).size;

  let started = performance.now();
  const reopened = await openStore({ dataDirectory: directory });
  const openMs = performance.now() - started;
  started = performance.now();
  const report = await recoverAfterRestart({
    runs: createRunStore(reopened),
    approvals: createApprovalStore(reopened, { signer: createApprovalSigner(Buffer.alloc(32, 1)) }),
  });
  const recoverMs = performance.now() - started;
  started = performance.now();
  const reopenedRuns = createRunStore(reopened);
  const [latest] = await reopenedRuns.list({ limit: 1 });
  const events = latest ? await reopenedRuns.events(latest.id) : [];
  const readMs = performance.now() - started;
  console.log(
    `open: ${RUNS} runs × ${EVENTS_PER_RUN} events (${(size / 1_048_576).toFixed(1)} MB): open + check ${ms(openMs)}, ` +
      `recover (${report.interruptedRuns.length} interrupted) ${ms(recoverMs)}, list + read one run's ${events.length} events ${ms(readMs)}`,
  );
  await reopened.close();
}

const root = await mkdtemp(join(tmpdir(), 'tsuka-store-bench-'));
try {
  console.log(`store bench in ${root} (node ${process.version})`);
  await benchRecall(join(root, 'recall'));
  await benchAppend(join(root, 'append'));
  await benchOpen(join(root, 'open'));
} finally {
  await rm(root, { recursive: true, force: true });
}
