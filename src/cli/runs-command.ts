/** `tsuka runs`: the recent runs of this data folder (id, when, where, kind, outcome), newest first. */
import type { AppConfig } from '../config/app-config.js';
import type { ConsoleIo as CliIo } from '../app/console-io.js';
import { openStore } from '../core/store/open-store.js';
import { createRunStore, type RunStore } from '../core/store/run-store.js';

const DEFAULT_RUN_COUNT = 20;

/** Opens the configured store read-write for a short CLI task and always closes it. */
export async function withRunStore<T>(config: AppConfig, task: (runs: RunStore) => Promise<T>): Promise<T> {
  const store = await openStore({ url: config.storeUrl, dataDirectory: config.dataDirectory });
  try {
    return await task(createRunStore(store));
  } finally {
    await store.close();
  }
}

export async function runRuns(args: string[], config: AppConfig, io: CliIo): Promise<number> {
  const limitArgument = args.find((arg) => /^\d+$/.test(arg));
  const limit = limitArgument ? Number(limitArgument) : DEFAULT_RUN_COUNT;
  const runs = await withRunStore(config, (store) => store.list({ limit }));
  if (runs.length === 0) {
    io.stdout('No runs yet.\n');
    return 0;
  }
  for (const run of runs) {
    const when = new Date(run.createdAt).toISOString().slice(0, 16).replace('T', ' ');
    const where = `${run.where.platform}:${run.where.channelId}`.replace(/^(\w+):\1:/, '$1:');
    io.stdout(`${run.id}  ${when}  ${where}  ${run.kind}  ${run.status}  ${run.title}\n`);
  }
  return 0;
}
