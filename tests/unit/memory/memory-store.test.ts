import { afterEach, describe, expect, it } from 'vitest';
import { SHARED_MEMORY_SCOPE } from '../../../src/core/memory/memory-fact.js';
import { MemoryInputError } from '../../../src/core/memory/fact-text.js';
import { createMemoryStore, type MemoryStoreOptions } from '../../../src/core/memory/memory-store.js';
import type { PersistedMemoryIndex } from '../../../src/core/memory/persisted-memory-index.js';
import { createSqliteMemoryIndex } from '../../../src/core/memory/sqlite-memory-index.js';
import { openStore, type Store } from '../../../src/core/store/open-store.js';
import { useTempDirectories } from '../store/support/temp-directory.js';

const WORKSPACE = '/srv/project-a';
const OTHER_WORKSPACE = '/srv/project-b';
const tempDirectory = useTempDirectories();
const opened: Store[] = [];
const indexes: PersistedMemoryIndex[] = [];
afterEach(async () => {
  await Promise.all(indexes.splice(0).map((index) => index.close()));
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

// Every behaviour holds whether scopes are read in full (memory://, Redis…) or kept by the persisted SQLite index.
describe.each([
  { variant: 'scopes read in full', persisted: false },
  { variant: 'persisted SQLite index', persisted: true },
])('memory store ($variant)', ({ persisted }) => {
  async function open(dataDirectory?: string): Promise<Store> {
    const directory = dataDirectory ?? (persisted ? await tempDirectory() : undefined);
    const store = await openStore(directory ? { dataDirectory: directory } : { url: 'memory', dataDirectory: '/unused' });
    opened.push(store);
    return store;
  }

  function createMemory(store: Store, options: Omit<MemoryStoreOptions, 'store' | 'index'> = {}) {
    const index = persisted ? createSqliteMemoryIndex(store.location) : undefined;
    if (index) indexes.push(index);
    return createMemoryStore({ ...options, store, index });
  }

  it('saves with a derived summary and recalls by stemmed, accent-folded keywords', async () => {
    const memory = createMemory(await open(), { now: () => 1_000 });
    const { fact, merged } = await memory.save({
      content: 'Sessions are cached in Redis with a one hour TTL; the café service reads them too.',
      scope: WORKSPACE,
      author: 'geordi',
      kind: 'decision',
      tags: ['Infra', 'infra', ' redis '],
    });
    expect(merged).toBe(false);
    expect(fact).toMatchObject({ kind: 'decision', scope: WORKSPACE, author: 'geordi', tags: ['infra', 'redis'], hits: 0, pinned: false });
    expect(fact.summary.length).toBeLessThanOrEqual(72);
    await memory.save({ content: 'The CI runs on GitHub Actions.', scope: WORKSPACE, author: 'worf' });
    const found = await memory.recall('session caching CAFE', { scope: WORKSPACE });
    expect(found.map((item) => item.id)).toEqual([fact.id]);
    expect(found[0]?.hits).toBe(1);
    expect(await memory.get(fact.id)).toMatchObject({ hits: 1 });
  });

  it('finds facts of its workspace and global ones, never another workspace', async () => {
    const memory = createMemory(await open());
    await memory.save({ content: 'Deploy with make deploy in project A.', scope: WORKSPACE, author: 'a' });
    await memory.save({ content: 'Never deploy on Fridays.', scope: SHARED_MEMORY_SCOPE, author: 'pike' });
    await memory.save({ content: 'Deploy project B with helm.', scope: OTHER_WORKSPACE, author: 'b' });
    const contents = (await memory.recall('deploy', { scope: WORKSPACE, limit: 10 })).map((fact) => fact.content);
    expect(contents.sort()).toEqual(['Deploy with make deploy in project A.', 'Never deploy on Fridays.']);
    expect((await memory.list(WORKSPACE)).map((fact) => fact.content)).toEqual(['Deploy with make deploy in project A.']);
  });

  it('merges an equal or nearly equal fact instead of saving it twice', async () => {
    const memory = createMemory(await open());
    const first = await memory.save({ content: 'Use pnpm, not npm, in this repository.', scope: WORKSPACE, author: 'a', tags: ['tooling'], pinned: true });
    const again = await memory.save({ content: 'use PNPM — not npm — in this repository', scope: WORKSPACE, author: 'b', tags: ['build'] });
    expect(again.merged).toBe(true);
    expect(again.fact).toMatchObject({ id: first.fact.id, hits: 1, pinned: true, tags: ['tooling', 'build'] });
    const reordered = await memory.save({ content: 'Tests must run against the staging database before every release.', scope: WORKSPACE, author: 'c' });
    const near = await memory.save({ content: 'Before every release, the tests must be run against the staging database', scope: WORKSPACE, author: 'd' });
    expect(near).toMatchObject({ merged: true, fact: { id: reordered.fact.id } });
    const different = await memory.save({ content: 'Tests must run against the production database after every release.', scope: WORKSPACE, author: 'e' });
    expect(different.merged).toBe(false);
    const elsewhere = await memory.save({ content: 'Use pnpm, not npm, in this repository.', scope: OTHER_WORKSPACE, author: 'a' });
    expect(elsewhere.merged).toBe(false);
    expect(await memory.list(WORKSPACE)).toHaveLength(3);
  });

  it('evicts run facts first, then the least valuable, never pinned ones, past the per-scope limit', async () => {
    let clock = 0;
    const memory = createMemory(await open(), { maxFactsPerScope: 3, now: () => (clock += 1_000) });
    const pinnedRun = await memory.save({ content: 'pinned run note alpha', kind: 'run', pinned: true, scope: WORKSPACE, author: 'a' });
    const run = await memory.save({ content: 'transient run note bravo', kind: 'run', scope: WORKSPACE, author: 'a' });
    const decision = await memory.save({ content: 'decision charlie stands', kind: 'decision', scope: WORKSPACE, author: 'a' });
    const fact = await memory.save({ content: 'fact delta holds', scope: WORKSPACE, author: 'a' });
    let ids = (await memory.list(WORKSPACE)).map((item) => item.id);
    expect(ids.sort()).toEqual([pinnedRun.fact.id, decision.fact.id, fact.fact.id].sort());
    expect(run.fact.id).not.toBe(pinnedRun.fact.id);
    await memory.save({ content: 'decision echo stands', kind: 'decision', scope: WORKSPACE, author: 'a' });
    ids = (await memory.list(WORKSPACE)).map((item) => item.id);
    expect(ids).toContain(pinnedRun.fact.id);
    expect(ids).not.toContain(fact.fact.id);
    expect(await memory.get(fact.fact.id)).toBeUndefined();
  });

  it('updates, pins, unpins and forgets by id', async () => {
    const memory = createMemory(await open());
    const { fact } = await memory.save({ content: 'The staging database is Postgres 14.', scope: WORKSPACE, author: 'a' });
    const updated = await memory.update(fact.id, { content: 'The staging database is Postgres 16.', tags: ['db'] });
    expect(updated).toMatchObject({ content: 'The staging database is Postgres 16.', summary: 'The staging database is Postgres 16.', tags: ['db'] });
    expect((await memory.recall('postgres', { scope: WORKSPACE }))[0]?.content).toContain('16');
    expect((await memory.pin(fact.id))?.pinned).toBe(true);
    expect((await memory.unpin(fact.id))?.pinned).toBe(false);
    expect((await memory.forget(fact.id))?.id).toBe(fact.id);
    expect(await memory.recall('postgres', { scope: WORKSPACE })).toEqual([]);
    expect(await memory.forget(fact.id)).toBeUndefined();
    expect(await memory.update('missing-id', { pinned: true })).toBeUndefined();
    await expect(memory.save({ content: '   ', scope: WORKSPACE, author: 'a' })).rejects.toBeInstanceOf(MemoryInputError);
  });

  // Design §6.3: the original saved under a generic author and then filtered by author.
  it('puts a fact saved by one agent into the prompt of every other character', async () => {
    const memory = createMemory(await open());
    await memory.save({ content: 'The payments API needs the X-Idempotency-Key header.', scope: WORKSPACE, author: 'geordi' });
    const context = await memory.contextFor('how do I call the payments API?', { scope: WORKSPACE, budgetChars: 2_000 });
    expect(context).toContain('X-Idempotency-Key');
    expect(context.startsWith('Long-term memory')).toBe(true);
  });

  it('keeps the prompt section within its character budget, pinned facts first', async () => {
    const memory = createMemory(await open());
    await memory.save({ content: 'Pinned rule: every release needs a changelog entry.', scope: SHARED_MEMORY_SCOPE, author: 'pike', pinned: true });
    for (let index = 0; index < 10; index += 1) {
      await memory.save({ content: `Release step ${index}: run the smoke test suite number ${index} before tagging.`, scope: WORKSPACE, author: 'a' });
    }
    const context = await memory.contextFor('release smoke test', { scope: WORKSPACE, budgetChars: 400 });
    expect(context.length).toBeLessThanOrEqual(400);
    expect(context.split('\n')[1]).toContain('changelog');
    expect(context.split('\n').length).toBeGreaterThan(2);
    expect(await memory.contextFor('release', { scope: WORKSPACE, budgetChars: 20 })).toBe('');
    expect(await memory.contextFor('quantum chromodynamics', { scope: OTHER_WORKSPACE, budgetChars: 2_000 })).toContain('changelog');
  });

  it('loses none of many concurrent saves and updates in one scope (SQLite)', async () => {
    const memory = createMemory(await open(await tempDirectory()));
    const saved = await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        memory.save({ content: `Service number ${index} listens on port ${8000 + index}.`, scope: WORKSPACE, author: `agent${index % 3}` }),
      ),
    );
    expect(new Set(saved.map((result) => result.fact.id)).size).toBe(40);
    const target = saved[0]!.fact.id;
    await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        memory.update(target, { tags: [`t${index}`] }).then(() => memory.recall('service port 8000', { scope: WORKSPACE, limit: 1 })),
      ),
    );
    expect(await memory.list(WORKSPACE)).toHaveLength(40);
    expect((await memory.get(target))?.hits).toBeGreaterThanOrEqual(1);
    const same = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        memory.save({ content: 'Logs rotate daily at midnight.', scope: WORKSPACE, author: `agent${index}`, tags: [`t${index}`] }),
      ),
    );
    expect(same.filter((result) => !result.merged)).toHaveLength(1);
    const merged = await memory.get(same[0]!.fact.id);
    expect(merged).toMatchObject({ hits: 9 });
    expect(merged?.tags).toHaveLength(10);
    expect(await memory.list(WORKSPACE)).toHaveLength(41);
  });

  it('recalls a fact after the store is closed and reopened (tsuka ask across invocations)', async () => {
    const directory = await tempDirectory();
    const first = await openStore({ dataDirectory: directory });
    await createMemory(first).save({ content: 'The answer to the build question is: run make ci.', scope: WORKSPACE, author: 'geordi' });
    await first.close();
    const memory = createMemory(await open(directory));
    const found = await memory.recall('build question', { scope: WORKSPACE });
    expect(found.map((fact) => fact.content)).toEqual(['The answer to the build question is: run make ci.']);
  });

  it('sees facts another process wrote to the same database after its own index was loaded', async () => {
    const directory = await tempDirectory();
    const server = createMemory(await open(directory));
    const cli = createMemory(await open(directory));
    expect(await server.recall('kubernetes', { scope: WORKSPACE })).toEqual([]);
    await cli.save({ content: 'Kubernetes manifests live in deploy/k8s.', scope: WORKSPACE, author: 'geordi' });
    expect((await server.recall('kubernetes', { scope: WORKSPACE })).map((fact) => fact.author)).toEqual(['geordi']);
  });
});
