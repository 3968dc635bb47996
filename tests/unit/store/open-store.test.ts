import KeyvSqlite from '@keyv/sqlite';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { StoreError } from '../../../src/core/errors.js';
import { openStore, type Store } from '../../../src/core/store/open-store.js';
import { useTempDirectories } from './support/temp-directory.js';

const tempDirectory = useTempDirectories();
const openedStores: Store[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(openedStores.splice(0).map((store) => store.close()));
});

async function open(url: string | undefined, dataDirectory: string, busyTimeoutMs?: number): Promise<Store> {
  const store = await openStore({ url, dataDirectory, busyTimeoutMs });
  openedStores.push(store);
  return store;
}

async function openBoth(): Promise<[string, Store][]> {
  return [
    ['memory', await open('memory://', '/nonexistent')],
    ['sqlite', await open(undefined, await tempDirectory())],
  ];
}

describe('openStore', () => {
  it('defaults to tsuka.sqlite in the data directory', async () => {
    const directory = await tempDirectory();
    const store = await open(undefined, join(directory, 'nested'));
    expect(store.location).toBe(join(directory, 'nested', 'tsuka.sqlite'));
    expect((await readFile(store.location)).subarray(0, 15).toString()).toBe('SQLite format 3');
  });

  it('accepts "memory" and "memory://" as the in-process backend', async () => {
    expect((await open('memory', '/nonexistent')).location).toBe('memory');
    expect((await open('memory://', '/nonexistent')).location).toBe('memory');
  });

  it.each(['memory', 'sqlite'])('gets, sets, deletes and lists by prefix in key order (%s)', async (backend) => {
    const store = Object.fromEntries(await openBoth())[backend] as Store;
    const items = store.namespace<{ n: number }>('items');
    const other = store.namespace<{ n: number }>('items-other');
    await items.set('b:2', { n: 2 });
    await items.set('b:1', { n: 1 });
    await items.set('a:1', { n: 0 });
    await items.set('b', { n: 9 });
    await other.set('b:3', { n: 3 });
    expect(await items.get('b:1')).toEqual({ n: 1 });
    expect(await items.has('b:2')).toBe(true);
    const listed: [string, { n: number }][] = [];
    for await (const entry of items.entries('b:')) listed.push(entry);
    expect(listed).toEqual([
      ['b:1', { n: 1 }],
      ['b:2', { n: 2 }],
    ]);
    expect(await items.delete('b:1')).toBe(true);
    expect(await items.get('b:1')).toBeUndefined();
    expect(await other.get('b:1')).toBeUndefined();
    const all: string[] = [];
    for await (const [key] of items.entries()) all.push(key);
    expect(all).toEqual(['a:1', 'b', 'b:2']);
  });

  it.each(['memory', 'sqlite'])('never loses a concurrent read-modify-write on one key (%s)', async (backend) => {
    const store = Object.fromEntries(await openBoth())[backend] as Store;
    const counters = store.namespace<number>('counters');
    await Promise.all(Array.from({ length: 100 }, () => counters.update('c', (current) => (current ?? 0) + 1)));
    expect(await counters.get('c')).toBe(100);
  });

  it('hides and purges entries past their TTL', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2030-01-01T00:00:00Z'));
    const store = await open(undefined, await tempDirectory());
    const ttl = store.namespace<string>('ttl');
    await ttl.set('short', 'x', 1_000);
    await ttl.set('long', 'y');
    vi.setSystemTime(new Date('2030-01-01T00:00:02Z'));
    const keys: string[] = [];
    for await (const [key] of ttl.entries()) keys.push(key);
    expect(keys).toEqual(['long']);
    expect(await ttl.purgeExpired()).toBe(1);
    expect(await ttl.get('short')).toBeUndefined();
  });

  it('keeps everything across close and reopen of the same file', async () => {
    const directory = await tempDirectory();
    const first = await openStore({ dataDirectory: directory });
    await first.namespace<{ deep: string[] }>('keep').set('k', { deep: ['a', ':colon'] });
    await first.close();
    const second = await open(undefined, directory);
    expect(await second.namespace('keep').get('k')).toEqual({ deep: ['a', ':colon'] });
  });

  it('refuses a damaged database with the path and a fix, and leaves the file as it was', async () => {
    const directory = await tempDirectory();
    const path = join(directory, 'tsuka.sqlite');
    const garbage = Buffer.from('this is not a database, just bytes '.repeat(300));
    await writeFile(path, garbage);
    const failure = await openStore({ dataDirectory: directory }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StoreError);
    expect((failure as StoreError).message).toContain(path);
    expect((failure as StoreError).message).toMatch(/damaged/);
    expect((failure as StoreError).message).toMatch(/will not reset/);
    expect((failure as StoreError).cause).toBeDefined();
    expect(Buffer.compare(await readFile(path), garbage)).toBe(0);
  });

  it('reports a database locked by another connection, naming the path', async () => {
    const directory = await tempDirectory();
    const path = join(directory, 'tsuka.sqlite');
    await (await openStore({ dataDirectory: directory })).close();
    const holder = new KeyvSqlite({ uri: `sqlite://${path}` });
    await holder.query('BEGIN EXCLUSIVE');
    try {
      const failure = await openStore({ dataDirectory: directory, busyTimeoutMs: 50 }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(StoreError);
      expect((failure as StoreError).message).toContain(path);
      expect((failure as StoreError).message).toMatch(/locked/);
    } finally {
      await holder.query('ROLLBACK');
      await holder.disconnect();
    }
  });

  it('explains an unknown store URL scheme instead of falling back', async () => {
    await expect(openStore({ url: 'ftp://example', dataDirectory: '/x' })).rejects.toThrow(/unknown scheme/);
  });

  it('names the missing adapter package for a Postgres URL (without its password)', async () => {
    const failure = await openStore({ url: 'postgres://user:secret@127.0.0.1:5432/tsuka', dataDirectory: '/x' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StoreError);
    expect((failure as Error).message).toContain('@keyv/postgres');
    expect((failure as Error).message).not.toContain('secret');
  });
});
