/**
 * Memory after the upgrade to conversation scopes (issue 21) and with masking (issue 29): a store
 * written in the old shape (facts scoped by workspace folder, and `global`) stays readable as shared
 * facts from any channel, nothing lost; its secrets are masked in place once; and a fact saved or
 * updated with a known secret value is stored masked — read from the raw SQLite rows.
 */
import KeyvSqlite from '@keyv/sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../../src/core/logger.js';
import type { MemoryFact } from '../../../src/core/memory/memory-fact.js';
import { createMemoryStore } from '../../../src/core/memory/memory-store.js';
import { scopeTag } from '../../../src/core/memory/memory-scope-cache.js';
import { createSqliteMemoryIndex } from '../../../src/core/memory/sqlite-memory-index.js';
import { createSecretMasker } from '../../../src/core/safety/secret-mask.js';
import { scopedMemory } from '../../../src/core/scopes/memory-access.js';
import { upgradeMemoryToConversationScopes } from '../../../src/core/scopes/memory-upgrade.js';
import { openStore, type Store } from '../../../src/core/store/open-store.js';
import { useTempDirectories } from '../store/support/temp-directory.js';

const SECRET = 'tok-abcdefghijklmnop';
const maskSecrets = createSecretMasker({ DEPLOY_TOKEN: SECRET });
const WORKSPACE = '/srv/project-a';
const GENERAL = 'channel:slack:T1/C_GENERAL';
const tempDirectory = useTempDirectories();
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function openSqlite(directory: string): Promise<Store> {
  const store = await openStore({ dataDirectory: directory });
  closers.push(() => store.close());
  return store;
}

/** The raw rows of the store's SQLite file, as another program would read them. */
async function rawRows(store: Store, sql: string, ...parameters: unknown[]): Promise<Record<string, unknown>[]> {
  const database = new KeyvSqlite({ uri: `sqlite://${store.location}`, table: 'keyv' });
  try {
    return (await database.query(sql, ...parameters)) as Record<string, unknown>[];
  } finally {
    await database.disconnect();
  }
}

/** A fact exactly as the memory store wrote it before conversation scopes (no `savedBy`). */
function oldFact(scope: string, suffix: string, content: string, extra: Partial<MemoryFact> = {}): MemoryFact {
  return {
    id: `${scopeTag(scope)}-${suffix}`,
    content,
    summary: content.slice(0, 72),
    kind: 'fact',
    scope,
    tags: [],
    pinned: false,
    hits: 2,
    createdAt: 1_000,
    lastUsedAt: 2_000,
    author: 'geordi',
    ...extra,
  };
}

describe('memory upgraded to conversation scopes', () => {
  it('keeps facts of the old workspace and global scopes readable from every channel, and masks their secrets once', async () => {
    const store = await openSqlite(await tempDirectory());
    const raw = store.namespace<MemoryFact>('memory');
    const old = [
      oldFact(WORKSPACE, '0000000a', `Deploy with DEPLOY_TOKEN=${SECRET} from the release box.`, { tags: ['deploy'] }),
      oldFact(WORKSPACE, '0000000b', 'The staging database is reset every Monday.', { pinned: true }),
      oldFact('global', '0000000c', 'Answer in English.'),
    ];
    for (const fact of old) await raw.set(fact.id, fact);
    // An index snapshot of the old scope, taken before the upgrade (it holds the secret's words).
    const oldIndex = createSqliteMemoryIndex(store.location);
    const before = createMemoryStore({ store, index: oldIndex });
    expect(await before.recall('deploy', { scope: WORKSPACE })).toHaveLength(1);
    await oldIndex.close();
    const snapshotOfWorkspace = () => rawRows(store, 'SELECT scope FROM memory_index_snapshots WHERE scope = ?', WORKSPACE);
    expect(await snapshotOfWorkspace()).toEqual([{ scope: WORKSPACE }]);

    const logger = createMemoryLogger();
    const index = createSqliteMemoryIndex(store.location);
    closers.push(() => index.close());
    const record = await upgradeMemoryToConversationScopes({ store, maskSecrets, logger, index });
    expect(record).toMatchObject({ legacyScopes: ['/srv/project-a', 'global'], masked: 1 });
    expect(logger.entries.find((entry) => entry.message === 'memory upgraded to conversation scopes')?.fields).toMatchObject({ legacyScopes: 2, masked: 1 });

    const [row] = await rawRows(store, 'SELECT value FROM keyv WHERE key = ?', `memory:${old[0]!.id}`);
    expect(String(row!.value)).not.toContain(SECRET);
    expect(String(row!.value)).toContain('DEPLOY_TOKEN=[secret masked]');
    // The snapshot with the old words is gone; the next open reads the masked facts in full.
    expect(await snapshotOfWorkspace()).toEqual([]);

    const memory = createMemoryStore({ store, index, maskSecrets, sharedScopes: record.legacyScopes });
    const general = scopedMemory(memory, { scope: GENERAL, user: 'slack:U1', isAdmin: () => false });
    expect((await general.list()).map((fact) => fact.id).sort()).toEqual(old.map((fact) => fact.id).sort());
    expect((await general.recall('staging database', 5)).map((fact) => fact.id)).toEqual([old[1]!.id]);
    const prompt = await memory.contextFor('how do we deploy?', { scope: GENERAL, budgetChars: 2_000 });
    expect(prompt).toContain('The staging database is reset every Monday.');
    expect(prompt).toContain('DEPLOY_TOKEN=[secret masked]');
    // Facts from before authors: only an admin changes them.
    expect(await general.forget(old[2]!.id)).toMatchObject({ ok: false, reason: 'forbidden' });
    const admin = scopedMemory(memory, { scope: GENERAL, user: 'slack:UADMIN', isAdmin: (user) => user === 'slack:UADMIN' });
    expect(await admin.unpin(old[1]!.id)).toMatchObject({ ok: true, fact: { pinned: false } });

    // Run again: the record is read, nothing is scanned or rewritten.
    expect(await upgradeMemoryToConversationScopes({ store, maskSecrets, logger, index })).toEqual(record);
  });

  it('stores the masked text of a fact saved, merged or updated with a known secret value (raw SQLite rows)', async () => {
    const store = await openSqlite(await tempDirectory());
    const index = createSqliteMemoryIndex(store.location);
    closers.push(() => index.close());
    const memory = createMemoryStore({ store, index, maskSecrets });
    const { fact } = await memory.save({
      content: `The vault is opened with ${SECRET} on the jump host.`,
      summary: `vault key ${SECRET}`,
      tags: [SECRET],
      scope: GENERAL,
      author: 'geordi',
      savedBy: 'slack:U1',
    });
    const merged = await memory.save({ content: `the vault is opened with ${SECRET} on the jump host`, scope: GENERAL, author: 'worf' });
    expect(merged).toMatchObject({ merged: true, fact: { id: fact.id } });
    const rowOf = async (id: string) => String((await rawRows(store, 'SELECT value FROM keyv WHERE key = ?', `memory:${id}`))[0]!.value);
    expect(await rowOf(fact.id)).not.toContain(SECRET);
    expect(await rowOf(fact.id)).toContain('The vault is opened with [secret masked] on the jump host.');
    await memory.update(fact.id, { content: `Rotated: the vault now opens with ${SECRET}2.`, summary: `rotated ${SECRET}` });
    expect(await rowOf(fact.id)).not.toContain(SECRET);
    // Nor in the index the scope keeps on disk.
    await index.close();
    const snapshots = await rawRows(store, 'SELECT data FROM memory_index_snapshots');
    expect(snapshots.length).toBeGreaterThan(0);
    for (const snapshot of snapshots) expect(Buffer.from(snapshot.data as Uint8Array).toString('latin1')).not.toContain('abcdefghijklmnop');
  });
});
