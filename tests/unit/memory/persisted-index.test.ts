import KeyvSqlite from '@keyv/sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../../src/core/logger.js';
import { SHARED_MEMORY_SCOPE, type MemoryFact } from '../../../src/core/memory/memory-fact.js';
import { scopeTag } from '../../../src/core/memory/memory-scope-cache.js';
import { createMemoryStore, type MemoryStore } from '../../../src/core/memory/memory-store.js';
import { MemoryIndexError, type PersistedMemoryIndex } from '../../../src/core/memory/persisted-memory-index.js';
import { createSqliteMemoryIndex, openMemoryIndexFor } from '../../../src/core/memory/sqlite-memory-index.js';
import { openStore, type Store } from '../../../src/core/store/open-store.js';
import { useTempDirectories } from '../store/support/temp-directory.js';

const WORKSPACE = '/srv/project-a';
const tempDirectory = useTempDirectories();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

interface Process {
  store: Store;
  memory: MemoryStore;
  /** Times a scope was opened from its snapshot / read in full. */
  openings(scope: string): { snapshot: number; full: number };
  warnings(): string[];
  close(): Promise<void>;
}

/** A process of its own over the database in `directory`: store, persisted index and memory store. */
async function openProcess(
  directory: string,
  options: { snapshotAfterChanges?: number; maxFactsPerScope?: number; indexPath?: string } = {},
): Promise<Process> {
  const store = await openStore({ dataDirectory: directory });
  const logger = createMemoryLogger();
  const index = createSqliteMemoryIndex(options.indexPath ?? store.location, { logger });
  const memory = createMemoryStore({ store, index, logger, snapshotAfterChanges: options.snapshotAfterChanges, maxFactsPerScope: options.maxFactsPerScope });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await index.close();
    await store.close();
  };
  closers.push(close);
  const count = (message: string, scope: string) => logger.entries.filter((entry) => entry.message === message && entry.fields.scope === scope).length;
  return {
    store,
    memory,
    openings: (scope) => ({
      snapshot: count('memory scope opened from its snapshot', scope),
      full: count('memory scope read in full for its first snapshot', scope),
    }),
    warnings: () => logger.entries.filter((entry) => entry.level === 'warn').map((entry) => entry.message),
    close,
  };
}

async function rawQuery(directory: string, sql: string, ...parameters: unknown[]): Promise<unknown> {
  const connection = new KeyvSqlite({ uri: `sqlite://${directory}/tsuka.sqlite`, busyTimeout: 5_000 });
  try {
    return await connection.query(sql, ...parameters);
  } finally {
    await connection.disconnect();
  }
}

const contents = (facts: MemoryFact[]) => facts.map((fact) => fact.content);

describe('memory over the persisted SQLite index', () => {
  it('opens a scope from its snapshot in a fresh process and ranks exactly as a full read does', async () => {
    const directory = await tempDirectory();
    const first = await openProcess(directory, { snapshotAfterChanges: 4 });
    const topics = ['redis cache', 'helm chart', 'kafka topic', 'vault token', 'release canary', 'invoice budget'];
    for (let position = 0; position < 36; position += 1) {
      const topic = topics[position % topics.length]!;
      const scope = position % 5 === 0 ? SHARED_MEMORY_SCOPE : WORKSPACE;
      await first.memory.save({
        content: `Note ${position}: the ${topic} ${'setting '.repeat(position % 4)}lives in module ${position % 7}.`,
        scope,
        author: 'a',
      });
    }
    const [updated] = await first.memory.recall('kafka topic', { scope: WORKSPACE, limit: 1 });
    await first.memory.update(updated!.id, { content: 'Note: the kafka topic moved to the shared cluster.' });
    await first.memory.forget((await first.memory.recall('vault token', { scope: WORKSPACE, limit: 1 }))[0]!.id);
    await first.close();

    const second = await openProcess(directory);
    // A memory store without the index over the same database reads every fact: the reference.
    const fullRead = createMemoryStore({ store: second.store });
    for (const query of ['redis cache', 'kafka topic cluster', 'helm module 3', 'release canary budget', 'setting', 'vault token']) {
      const fromSnapshot = await second.memory.recall(query, { scope: WORKSPACE, limit: 8 });
      expect(
        fromSnapshot.map((fact) => fact.id),
        query,
      ).toEqual((await fullRead.recall(query, { scope: WORKSPACE, limit: 8 })).map((fact) => fact.id));
    }
    expect(second.openings(WORKSPACE)).toEqual({ snapshot: 1, full: 0 });
    expect(contents(await second.memory.recall('kafka topic shared cluster', { scope: WORKSPACE, limit: 1 }))).toEqual([
      'Note: the kafka topic moved to the shared cluster.',
    ]);
  });

  it('finds what another process saves, and drops what it updates away or forgets', async () => {
    const directory = await tempDirectory();
    const server = await openProcess(directory);
    const cli = await openProcess(directory);
    expect(await server.memory.recall('kubernetes', { scope: WORKSPACE })).toEqual([]);
    const { fact } = await cli.memory.save({ content: 'Kubernetes manifests live in deploy/k8s.', scope: WORKSPACE, author: 'geordi' });
    expect((await server.memory.recall('kubernetes', { scope: WORKSPACE })).map((found) => found.author)).toEqual(['geordi']);
    await cli.memory.update(fact.id, { content: 'Helm charts live in deploy/helm.' });
    expect(await server.memory.recall('kubernetes manifests', { scope: WORKSPACE })).toEqual([]);
    expect(contents(await server.memory.recall('helm charts', { scope: WORKSPACE }))).toEqual(['Helm charts live in deploy/helm.']);
    await cli.memory.forget(fact.id);
    expect(await server.memory.recall('helm charts', { scope: WORKSPACE })).toEqual([]);
    expect(server.openings(WORKSPACE).full + server.openings(WORKSPACE).snapshot).toBe(1);
  });

  it('sees facts written straight into the store, around the memory store (the journal is kept by triggers)', async () => {
    const directory = await tempDirectory();
    const single = await openProcess(directory);
    expect(await single.memory.recall('terraform', { scope: WORKSPACE })).toEqual([]);
    const id = `${scopeTag(WORKSPACE)}-0000raw1`;
    const raw: MemoryFact = {
      id,
      content: 'Terraform state is kept in the ops bucket.',
      summary: 'Terraform state is kept in the ops bucket.',
      kind: 'fact',
      scope: WORKSPACE,
      tags: [],
      pinned: false,
      hits: 0,
      createdAt: 1,
      lastUsedAt: 1,
      author: 'import',
    };
    const other = await openStore({ dataDirectory: directory });
    closers.push(() => other.close());
    await other.namespace<MemoryFact>('memory').set(id, raw);
    expect((await single.memory.recall('terraform state', { scope: WORKSPACE })).map((fact) => fact.id)).toEqual([id]);
    await other.namespace<MemoryFact>('memory').delete(id);
    expect(await single.memory.recall('terraform state', { scope: WORKSPACE })).toEqual([]);
  });

  it('reopens from a snapshot and the journal after it: updates and forgets before and after the snapshot hold', async () => {
    const directory = await tempDirectory();
    const first = await openProcess(directory, { snapshotAfterChanges: 3 });
    const saved: MemoryFact[] = [];
    for (const topic of ['postgres replica', 'nginx proxy', 'grafana dashboard', 'oauth client', 'webhook secret', 'cron backup']) {
      saved.push((await first.memory.save({ content: `The ${topic} is documented in the wiki.`, scope: WORKSPACE, author: 'a' })).fact);
    }
    await first.memory.update(saved[0]!.id, { content: 'The mysql primary is documented in the runbook.' });
    await first.memory.forget(saved[1]!.id);
    await first.memory.recall('wiki', { scope: WORKSPACE });
    await first.memory.update(saved[2]!.id, { content: 'Dashboards moved to the observability stack.' });
    await first.memory.forget(saved[3]!.id);
    await first.close();

    const second = await openProcess(directory);
    expect(await second.memory.recall('postgres replica', { scope: WORKSPACE })).toEqual([]);
    expect(await second.memory.recall('nginx proxy', { scope: WORKSPACE })).toEqual([]);
    expect(await second.memory.recall('grafana', { scope: WORKSPACE })).toEqual([]);
    expect(await second.memory.recall('oauth client', { scope: WORKSPACE })).toEqual([]);
    expect(contents(await second.memory.recall('mysql runbook', { scope: WORKSPACE }))).toEqual(['The mysql primary is documented in the runbook.']);
    expect(contents(await second.memory.recall('observability', { scope: WORKSPACE }))).toEqual(['Dashboards moved to the observability stack.']);
    expect((await second.memory.list(WORKSPACE)).map((fact) => fact.id).sort()).toEqual(
      [saved[0], saved[2], saved[4], saved[5]].map((fact) => fact!.id).sort(),
    );
    expect(second.openings(WORKSPACE)).toEqual({ snapshot: 1, full: 0 });
  });

  it('opens again when another process has pruned the journal past what its view applied', async () => {
    const directory = await tempDirectory();
    const idle = await openProcess(directory);
    await idle.memory.save({ content: 'The first note about the smoke tests.', scope: WORKSPACE, author: 'a' });
    const busy = await openProcess(directory, { snapshotAfterChanges: 1 });
    for (const topic of ['ingress timeout', 'shard rebalance', 'lambda cold start']) {
      await busy.memory.save({ content: `The ${topic} runbook is in ops/.`, scope: WORKSPACE, author: 'b' });
    }
    await busy.memory.recall('runbook', { scope: WORKSPACE });
    await busy.close();
    const pruned = (await rawQuery(directory, 'SELECT seq FROM memory_index_pruned WHERE tag = ?', scopeTag(WORKSPACE))) as { seq: number }[];
    expect(pruned[0]?.seq).toBeGreaterThan(0);
    const found = await idle.memory.recall('runbook ops', { scope: WORKSPACE, limit: 10 });
    expect(found).toHaveLength(3);
    expect(idle.openings(WORKSPACE).snapshot).toBe(1);
  });

  it('ignores a damaged snapshot, or one ahead of the journal, and reads the scope in full', async () => {
    const directory = await tempDirectory();
    const first = await openProcess(directory);
    await first.memory.save({ content: 'Payments need an idempotency key.', scope: WORKSPACE, author: 'a' });
    await first.close();
    await rawQuery(directory, "UPDATE memory_index_snapshots SET data = X'0001020304050607080910' WHERE scope = ?", WORKSPACE);
    const second = await openProcess(directory);
    expect(contents(await second.memory.recall('idempotency', { scope: WORKSPACE }))).toEqual(['Payments need an idempotency key.']);
    expect(second.openings(WORKSPACE)).toEqual({ snapshot: 0, full: 1 });
    await second.close();
    await rawQuery(directory, 'UPDATE memory_index_snapshots SET seq = seq + 1000 WHERE scope = ?', WORKSPACE);
    const third = await openProcess(directory);
    expect(contents(await third.memory.recall('payments', { scope: WORKSPACE }))).toEqual(['Payments need an idempotency key.']);
    expect(third.openings(WORKSPACE)).toEqual({ snapshot: 0, full: 1 });
  });

  it('merges duplicates, evicts, and puts pinned facts first in a scope opened from its snapshot', async () => {
    const directory = await tempDirectory();
    const first = await openProcess(directory, { maxFactsPerScope: 3 });
    await first.memory.save({ content: 'Every release needs a changelog entry.', scope: SHARED_MEMORY_SCOPE, author: 'pike', pinned: true });
    const kept = await first.memory.save({ content: 'Use pnpm, not npm, in this repository.', scope: WORKSPACE, author: 'a', kind: 'decision' });
    const run = await first.memory.save({ content: 'Run 42 built the image in nine minutes.', scope: WORKSPACE, author: 'a', kind: 'run' });
    await first.memory.save({ content: 'The release smoke test needs the staging token.', scope: WORKSPACE, author: 'a' });
    await first.close();

    const second = await openProcess(directory, { maxFactsPerScope: 3 });
    const again = await second.memory.save({ content: 'use PNPM — not npm — in this repository', scope: WORKSPACE, author: 'b' });
    expect(again).toMatchObject({ merged: true, fact: { id: kept.fact.id, hits: 1 } });
    await second.memory.save({ content: 'Tests run against the staging database.', scope: WORKSPACE, author: 'b' });
    const ids = (await second.memory.list(WORKSPACE)).map((fact) => fact.id);
    expect(ids).toHaveLength(3);
    expect(ids).not.toContain(run.fact.id);
    expect(await second.memory.recall('image minutes', { scope: WORKSPACE })).toEqual([]);
    const context = await second.memory.contextFor('release smoke test', { scope: WORKSPACE, budgetChars: 2_000 });
    expect(context.split('\n')[1]).toContain('changelog');
    expect(context).toContain('staging token');
  });

  it('keeps working from full reads when the index fails, and ignores an index over another database', async () => {
    const directory = await tempDirectory();
    const single = await openProcess(directory, { indexPath: `${directory}/other.sqlite` });
    await single.memory.save({ content: 'Backups run nightly at two.', scope: WORKSPACE, author: 'a' });
    expect(contents(await single.memory.recall('backups nightly', { scope: WORKSPACE }))).toEqual(['Backups run nightly at two.']);
    expect(single.warnings()).toEqual(['memory index ignored: it is not over the store']);

    const logger = createMemoryLogger();
    const failing: PersistedMemoryIndex = {
      location: single.store.location,
      open: async () => {
        throw new MemoryIndexError('Could not open a scope in the memory index.');
      },
      changesSince: async () => [],
      readFacts: async () => new Map(),
      saveSnapshot() {},
      close: async () => undefined,
    };
    const memory = createMemoryStore({ store: single.store, index: failing, logger });
    expect(contents(await memory.recall('backups', { scope: WORKSPACE }))).toEqual(['Backups run nightly at two.']);
    await memory.save({ content: 'Restores are tested monthly.', scope: WORKSPACE, author: 'b' });
    expect(contents(await memory.recall('restores monthly', { scope: WORKSPACE }))).toEqual(['Restores are tested monthly.']);
    expect(logger.entries.filter((entry) => entry.level === 'warn').map((entry) => entry.message)).toEqual([
      'memory index unavailable: scopes are read in full from now on',
    ]);
  });

  it('is made for SQLite stores only (the default file, or a sqlite:// URL)', async () => {
    expect(openMemoryIndexFor('memory://', '/data')).toBeUndefined();
    expect(openMemoryIndexFor('redis://cache:6379', '/data')).toBeUndefined();
    expect(openMemoryIndexFor(undefined, '/data')?.location).toBe('/data/tsuka.sqlite');
    expect(openMemoryIndexFor('sqlite:///var/tsuka/state.sqlite', '/data')?.location).toBe('/var/tsuka/state.sqlite');
  });
});
