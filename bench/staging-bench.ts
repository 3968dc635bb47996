/**
 * Staging benchmark (issue 42, not a test): parallel /goal steps each get a staging area of the
 * workspace. Measures 8 stagings made at once of a 10 MB and a 100 MB workspace (16 KB files, 40 to
 * a folder), the diff of 8 unchanged stagings, the diff after a step wrote one file, and what the
 * first command in a staging costs (its files are made private before a sandboxed command runs).
 * Run: `npx tsx bench/staging-bench.ts`.
 * Goals: 8 stagings of 100 MB ≤ 1 s; growth from 10 to 100 MB at most linear (≤ 10×); the diff of
 * 8 unchanged stagings ≤ 1 s.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFileBeneath } from '../src/core/tools/atomic-write.js';
import { createStaging, type Staging } from '../src/core/workflows/goal/parallel-workspace.js';
import { benchSize } from './bench-size.js';

const BRANCHES = benchSize(8, 2);
const SMALL_MB = benchSize(10, 1);
const LARGE_MB = benchSize(100, 2);
const FILE_BYTES = 16 * 1024;
const FILES_PER_FOLDER = 40;
const STAGINGS_TARGET_S = 1;
const DIFF_TARGET_S = 1;

const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const verdict = (ok: boolean): string => (ok ? 'goal met' : 'GOAL MISSED');

async function makeWorkspace(root: string, megabytes: number): Promise<number> {
  const files = Math.ceil((megabytes * 1024 * 1024) / FILE_BYTES);
  const content = Buffer.alloc(FILE_BYTES, 'x');
  for (let folder = 0; folder * FILES_PER_FOLDER < files; folder += 1) {
    const dir = join(root, `src-${folder}`);
    await mkdir(dir, { recursive: true });
    const names = [];
    for (let i = folder * FILES_PER_FOLDER; i < Math.min(files, (folder + 1) * FILES_PER_FOLDER); i += 1) names.push(join(dir, `file-${i}.txt`));
    await Promise.all(names.map((name) => writeFile(name, content)));
  }
  return files;
}

interface Timed<T> {
  ms: number;
  /** This process's CPU time (user + system): what the work cost, whatever the machine's load. */
  cpuMs: number;
  value: T;
}

async function timed<T>(work: () => Promise<T>): Promise<Timed<T>> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const value = await work();
  const used = process.cpuUsage(cpu);
  return { ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000, value };
}

const figure = (measured: Timed<unknown>): string => `${seconds(measured.ms)} (CPU ${seconds(measured.cpuMs)})`;

async function stagingsOf(megabytes: number, keep: (stagings: Staging[], workspace: string) => Promise<void>): Promise<number> {
  const directory = await mkdtemp(join(tmpdir(), 'tsuka-staging-bench-'));
  try {
    const workspace = join(directory, 'workspace');
    const files = await makeWorkspace(workspace, megabytes);
    const stagingRoot = join(directory, 'stagings');
    const labels = Array.from({ length: BRANCHES }, (_, index) => `step-${index + 1}`);
    const made = await timed(() => Promise.all(labels.map((label) => createStaging(workspace, stagingRoot, label))));
    console.log(`  ${BRANCHES} stagings of ${megabytes} MB (${files} files, mode ${made.value[0]?.mode}): ${figure(made)}`);
    await keep(made.value, workspace);
    await Promise.all(made.value.map((staging) => staging.cleanup()));
    return made.ms;
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

console.log(
  `Staging bench (${BRANCHES} parallel stagings, ${FILE_BYTES / 1024} KB files; load average ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} cores)`,
);
const small = await stagingsOf(SMALL_MB, async () => {});
const large = await stagingsOf(LARGE_MB, async (stagings) => {
  const unchanged = await timed(() => Promise.all(stagings.map((staging) => staging.diff())));
  const changes = unchanged.value.reduce((sum, list) => sum + list.length, 0);
  console.log(
    `  diff of ${BRANCHES} unchanged stagings: ${figure(unchanged)} (${changes} changes) — goal ≤ ${DIFF_TARGET_S} s: ${verdict(unchanged.ms <= DIFF_TARGET_S * 1000)}`,
  );
  const first = stagings[0] as Staging;
  // As the file tools write (a replaced file): a write in place would reach every hard link of it.
  await writeFileBeneath(first.workspace, join(first.root, 'src-0', 'file-0.txt'), 'written by the step\n');
  const oneWrite = await timed(() => first.diff());
  console.log(`  diff of 1 staging after the step wrote 1 file: ${figure(oneWrite)} (${oneWrite.value.length} change)`);
  const prepared = await timed(() => first.prepareForCommands());
  console.log(`  first command in a staging (its shared files made private): ${figure(prepared)}`);
});
console.log(`  ${BRANCHES} stagings of ${LARGE_MB} MB — goal ≤ ${STAGINGS_TARGET_S} s: ${verdict(large <= STAGINGS_TARGET_S * 1000)}`);
const growth = large / small;
const linear = LARGE_MB / SMALL_MB;
console.log(`  growth ${SMALL_MB} MB → ${LARGE_MB} MB: ${growth.toFixed(1)}× — goal ≤ ${linear}× (linear): ${verdict(growth <= linear)}`);
