/**
 * Private files (issue 29), as the attack: under the usual umask 022 everything the bot kept was
 * created world-readable — the data folder, the SQLite database with every transcript and approval,
 * its -wal/-shm, the lock, the fingerprint file, and backups. Now, whatever the umask: the data folder
 * is 0700, every file in it 0600, a backup 0600 even outside it; what an older version left open is
 * tightened at start, with a warning.
 */
import { chmodSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireDataFolderLock } from '../../../src/app/data-folder-lock.js';
import { createEngine, type Engine } from '../../../src/app/create-engine.js';
import { runBackup } from '../../../src/cli/backup-command.js';
import { PACKAGE_ROOT } from '../../../src/app/package-root.js';
import { loadConfig } from '../../../src/config/load-config.js';
import type { AppConfig } from '../../../src/config/app-config.js';
import { createMemoryLogger } from '../../../src/core/logger.js';
import { createScriptedModel } from '../../../src/core/model/scripted-model.js';
import { createFallbackSandbox } from '../../../src/core/safety/fallback-sandbox.js';
import { openStore } from '../../../src/core/store/open-store.js';

const mode = (file: string): string => (statSync(file).mode & 0o777).toString(8);

let home: string;
let previousUmask: number;
let engine: Engine | undefined;
let release: (() => void) | undefined;
beforeEach(async () => {
  previousUmask = process.umask(0o022);
  home = await mkdtemp(path.join(os.tmpdir(), 'tsuka-private-'));
});
afterEach(async () => {
  await engine?.close();
  release?.();
  engine = release = undefined;
  process.umask(previousUmask);
  await rm(home, { recursive: true, force: true });
});

const configFor = (data: string): AppConfig =>
  loadConfig({
    environment: { PATH: process.env.PATH, HOME: home, TSUKA_DATA_DIR: data, TSUKA_WORKSPACE: path.join(home, 'workspace') },
    workingDirectory: home,
    rootDirectory: PACKAGE_ROOT,
  });

/** What `tsuka start` does with the data folder: the lock, then the engine (fingerprint file, SQLite store), then writes. */
async function start(config: AppConfig, logger = createMemoryLogger()) {
  release = acquireDataFolderLock(config.dataDirectory).release;
  engine = await createEngine({ config, logger, maskSecrets: (text) => text, model: createScriptedModel([]), sandbox: createFallbackSandbox() });
  await engine.store.namespace('transcripts').set('t', 'every word of a conversation');
  return logger;
}

async function backup(config: AppConfig, file: string): Promise<number> {
  return runBackup([file], config, { stdout: () => undefined, stderr: () => undefined, environment: {}, workingDirectory: home });
}

describe('private files under umask 022', () => {
  it('a new data folder is 0700; the database, its -wal/-shm, the lock and the fingerprint file are 0600; so is a backup outside it', async () => {
    const data = path.join(home, 'data');
    const config = configFor(data);
    await start(config);
    expect(mode(data)).toBe('700');
    for (const name of ['tsuka.sqlite', 'tsuka.sqlite-wal', 'tsuka.sqlite-shm', 'tsuka.lock', 'checked-data.sha256'])
      expect([name, mode(path.join(data, name))]).toEqual([name, '600']);

    await mkdir(path.join(home, 'backups'));
    expect(await backup(config, 'backups/tsuka.sqlite')).toBe(0);
    expect(mode(path.join(home, 'backups', 'tsuka.sqlite'))).toBe('600');
  });

  it('an existing world-readable data folder is tightened at start, with a warning naming what was open', async () => {
    const data = path.join(home, 'data');
    // What an older version left: the folder 0755, the database and an old file 0644, a sub-folder 0755.
    const old = await openStore({ dataDirectory: data });
    await old.namespace('transcripts').set('t', 'every word of a conversation');
    await old.close();
    await writeFile(path.join(data, 'notes.txt'), 'old');
    await mkdir(path.join(data, 'keys'));
    await writeFile(path.join(data, 'keys', 'approval.key'), 'k');
    for (const [file, bits] of [
      [data, 0o755],
      [path.join(data, 'keys'), 0o755],
      [path.join(data, 'tsuka.sqlite'), 0o644],
      [path.join(data, 'notes.txt'), 0o644],
      [path.join(data, 'keys', 'approval.key'), 0o644],
    ] as const)
      chmodSync(file, bits);

    const logger = await start(configFor(data));
    expect(mode(data)).toBe('700');
    expect(mode(path.join(data, 'keys'))).toBe('700');
    for (const name of ['tsuka.sqlite', 'notes.txt', 'keys/approval.key', 'tsuka.sqlite-wal'])
      expect([name, mode(path.join(data, name))]).toEqual([name, '600']);
    const warning = logger.entries.find((entry) => entry.level === 'warn' && /data folder was readable by other users/.test(entry.message));
    expect(warning?.fields).toMatchObject({ folder: data, count: 5 });
    expect(warning?.fields.paths).toEqual(expect.arrayContaining(['.', 'tsuka.sqlite', 'keys/approval.key']));
  });

  it('a database outside the data folder (sqlite://…) is created 0600 and an open one tightened, with a warning', async () => {
    const file = path.join(home, 'elsewhere', 'state.sqlite');
    const logger = createMemoryLogger();
    const store = await openStore({ url: `sqlite://${file}`, dataDirectory: path.join(home, 'data'), logger });
    await store.namespace('t').set('k', 'v');
    await store.close();
    expect(mode(file)).toBe('600');
    chmodSync(file, 0o644);
    const again = await openStore({ url: `sqlite://${file}`, dataDirectory: path.join(home, 'data'), logger });
    await again.close();
    expect(mode(file)).toBe('600');
    expect(logger.entries.some((entry) => entry.level === 'warn' && entry.fields.file === file)).toBe(true);
  });
});
