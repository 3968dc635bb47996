/**
 * Memory benchmark (not a test): one workspace scope in a SQLite store holding 1k, 10k and 50k facts,
 * with the persisted memory index `createEngine` wires for SQLite. For each size: the first open
 * after the facts were written without it (reads every fact, saves the first snapshot), the first
 * recall after a fresh process opens the scope (its snapshot), recall latency, saving a fact (new
 * facts and duplicates that merge), and the first recall when the snapshot lags by as many
 * rewritten facts as it may. Run: `npx tsx bench/memory-bench.ts [sizes…]`.
 * Goals (issue 14): save ≤ 3 ms at 10k and ≤ 10 ms at 50k; recall p95 ≤ 10 ms at 50k;
 * first recall after opening a 10k scope ≤ 100 ms. Issue 42: the first recall after opening a
 * 200k scope from its snapshot ≤ 100 ms, opening linear in the facts (`npx tsx bench/memory-bench.ts 50000 200000`);
 * the CPU time is printed beside it (on a loaded machine the wall time waits for the cores).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryStore } from '../src/core/memory/memory-store.js';
import type { MemoryFact } from '../src/core/memory/memory-fact.js';
import { scopeTag } from '../src/core/memory/memory-scope-cache.js';
import { snapshotAfterChanges } from '../src/core/memory/persisted-scopes.js';
import { openMemoryIndexFor } from '../src/core/memory/sqlite-memory-index.js';
import { openStore } from '../src/core/store/open-store.js';
import { SMOKE } from './bench-size.js';

const SCOPE = '/bench/workspace';
const SAVES = 200;
const QUERIES = 300;
const SIZES = process.argv
  .slice(2)
  .map(Number)
  .filter((size) => size > 0);
const GOALS = {
  save: (size: number): number | undefined => (size >= 50_000 ? 10 : size >= 10_000 ? 3 : undefined),
  recallP95: 10,
  firstRecall: (size: number): number | undefined => (size <= 200_000 ? 100 : undefined),
  firstRecallBehind: (size: number): number | undefined => (size <= 10_000 ? 100 : undefined),
};

const WORDS = (
  'api auth build cache ci cluster config container cron database deploy docker endpoint env feature flag gateway ' +
  'git grafana header helm index ingress job kafka key lambda latency lint load log metric migration monitor node ' +
  'nginx oauth pipeline pod port postgres proxy queue rate redis release replica retry role route schema secret ' +
  'service session shard smoke snapshot ssl staging storage stream sync table tenant terraform test timeout token ' +
  'topic trace upload user vault version volume webhook worker yaml zone backup budget canary payment invoice'
).split(' ');

let seed = 7;
function random(): number {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
  return seed / 2_147_483_648;
}
const word = (): string => WORDS[Math.floor(random() * WORDS.length)] ?? 'api';
const phrase = (count: number): string => Array.from({ length: count }, word).join(' ');
const factText = (index: number): string => `Fact ${index}: the ${phrase(10)} uses ${phrase(4)}.`;

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}
const ms = (value: number): string => `${value.toFixed(2)} ms`;
const against = (value: number, goal: number | undefined): string => (goal === undefined ? '' : ` — goal ≤ ${goal} ms: ${value <= goal ? 'met' : 'MISSED'}`);

/** Fills the scope straight through the store (what earlier saves would have left), in batches. */
async function seedFacts(directory: string, size: number): Promise<void> {
  const store = await openStore({ dataDirectory: directory });
  const facts = store.namespace<MemoryFact>('memory');
  const tag = scopeTag(SCOPE);
  const time = Date.now();
  for (let start = 0; start < size; start += 1_000) {
    const batch: Promise<void>[] = [];
    for (let index = start; index < Math.min(size, start + 1_000); index += 1) {
      const content = factText(index);
      const id = `${tag}-${index.toString(16).padStart(8, '0')}`;
      batch.push(
        facts.set(id, {
          id,
          content,
          summary: content.slice(0, 72),
          kind: 'fact',
          scope: SCOPE,
          tags: [],
          pinned: false,
          hits: 0,
          createdAt: time,
          lastUsedAt: time,
          author: 'bench',
        }),
      );
    }
    await Promise.all(batch);
  }
  await store.close();
}

async function benchSize(root: string, size: number): Promise<void> {
  const directory = join(root, String(size));
  let started = performance.now();
  await seedFacts(directory, size);
  const seedMs = performance.now() - started;

  // The first process with the index: no snapshot yet, so it reads every fact and saves one.
  started = performance.now();
  {
    const store = await openStore({ dataDirectory: directory });
    const index = openMemoryIndexFor(undefined, directory)!;
    await createMemoryStore({ store, maxFactsPerScope: size * 2, index }).recall('redis cache timeout', { scope: SCOPE });
    const firstOpenMs = performance.now() - started;
    await index.close();
    await store.close();
    console.log(`${size} facts (seeded in ${ms(seedMs)}):`);
    console.log(
      `  first open after writing without the index (full read, first snapshot): ${ms(firstOpenMs)}, snapshot saved after ${ms(performance.now() - started)}`,
    );
  }

  // A fresh process: open the store, first recall (opens the scope's snapshot).
  const store = await openStore({ dataDirectory: directory });
  const index = openMemoryIndexFor(undefined, directory)!;
  const memory = createMemoryStore({ store, maxFactsPerScope: size * 2, index });
  started = performance.now();
  const cpuBefore = process.cpuUsage();
  await memory.recall('redis cache timeout', { scope: SCOPE });
  const firstRecallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const firstRecallCpuMs = (cpu.user + cpu.system) / 1000;

  const recalls: number[] = [];
  for (let index = 0; index < QUERIES; index += 1) {
    const query = phrase(2 + (index % 3));
    const queryStarted = performance.now();
    await memory.recall(query, { scope: SCOPE, limit: 5 });
    recalls.push(performance.now() - queryStarted);
  }
  recalls.sort((a, b) => a - b);

  const saves: number[] = [];
  for (let index = 0; index < SAVES; index += 1) {
    // One save in four repeats an earlier fact, which must merge.
    const content = index % 4 === 3 ? factText(Math.floor(random() * size)) : `New note ${index}: ${phrase(12)}.`;
    const saveStarted = performance.now();
    await memory.save({ content, scope: SCOPE, author: 'bench' });
    saves.push(performance.now() - saveStarted);
  }
  saves.sort((a, b) => a - b);
  await index.close();
  await store.close();
  const worstFirstRecallMs = await firstRecallBehindSnapshot(directory, size);

  const saveMean = saves.reduce((sum, value) => sum + value, 0) / saves.length;
  const recallP95 = percentile(recalls, 0.95);
  console.log(`  first recall after opening the scope: ${ms(firstRecallMs)} (CPU ${ms(firstRecallCpuMs)})${against(firstRecallMs, GOALS.firstRecall(size))}`);
  console.log(
    `  recall (${QUERIES} queries): p50 ${ms(percentile(recalls, 0.5))}, p95 ${ms(recallP95)}, max ${ms(recalls[recalls.length - 1] ?? 0)}${against(recallP95, GOALS.recallP95)}`,
  );
  console.log(
    `  save (${SAVES}, a quarter merging): mean ${ms(saveMean)}, p95 ${ms(percentile(saves, 0.95))}, max ${ms(saves[saves.length - 1] ?? 0)}${against(saveMean, GOALS.save(size))}`,
  );
  console.log(
    `  first recall when the snapshot is ${snapshotAfterChanges(size)} rewritten facts behind (the most before a new one): ${ms(worstFirstRecallMs)}${against(worstFirstRecallMs, GOALS.firstRecallBehind(size))}`,
  );
}

/** The first recall of a fresh process when another one has rewritten as many facts as a snapshot may lag by. */
async function firstRecallBehindSnapshot(directory: string, size: number): Promise<number> {
  const behind = snapshotAfterChanges(size);
  const run = async (snapshotAfter: number, work: (memory: ReturnType<typeof createMemoryStore>) => Promise<void>): Promise<void> => {
    const store = await openStore({ dataDirectory: directory });
    const index = openMemoryIndexFor(undefined, directory)!;
    await work(createMemoryStore({ store, maxFactsPerScope: size * 2, index, snapshotAfterChanges: snapshotAfter }));
    await index.close();
    await store.close();
  };
  // A snapshot of everything so far, then `behind` rewritten facts that no snapshot holds.
  await run(1, async (memory) => void (await memory.recall('snapshot', { scope: SCOPE })));
  await run(Number.POSITIVE_INFINITY, async (memory) => {
    for (let changed = 0; changed < behind; changed += 1) {
      const id = `${scopeTag(SCOPE)}-${((changed * 7_919) % size).toString(16).padStart(8, '0')}`;
      await memory.update(id, { content: `Rewritten ${changed}: the ${phrase(10)} now uses ${phrase(4)}.` });
    }
  });
  const store = await openStore({ dataDirectory: directory });
  const index = openMemoryIndexFor(undefined, directory)!;
  const started = performance.now();
  await createMemoryStore({ store, maxFactsPerScope: size * 2, index }).recall('redis cache timeout', { scope: SCOPE });
  const elapsed = performance.now() - started;
  await index.close();
  await store.close();
  return elapsed;
}

const root = await mkdtemp(join(tmpdir(), 'tsuka-memory-bench-'));
try {
  // On a shared machine wall times stretch with the load: say what it was.
  console.log(`memory bench in ${root} (node ${process.version}, load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores)`);
  for (const size of SIZES.length > 0 ? SIZES : SMOKE ? [200] : [1_000, 10_000, 50_000]) await benchSize(root, size);
} finally {
  await rm(root, { recursive: true, force: true });
}
