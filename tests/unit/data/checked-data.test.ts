/**
 * Start-up skips recompiling the JSON Schemas only for data files that passed the full check
 * unchanged: the same roster comes out, and any changed byte brings the full check back.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEngine } from '../../../src/app/create-engine.js';
import { CHECKED_DATA_FILE, dataFingerprint } from '../../../src/app/data-fingerprint.js';
import { PACKAGE_ROOT } from '../../../src/app/package-root.js';
import { loadConfig } from '../../../src/config/load-config.js';
import { DataFileError } from '../../../src/core/errors.js';
import { silentLogger } from '../../../src/core/logger.js';

let home: string;
let root: string;

beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), 'tsuka-checked-data-'));
  root = path.join(home, 'package');
  for (const entry of ['package.json', 'providers.json', 'roles', 'traits', 'characters', 'teams', 'tools_schemas']) {
    await cp(path.join(PACKAGE_ROOT, entry), path.join(root, entry), { recursive: true });
  }
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

async function engineRoster() {
  const config = loadConfig({
    environment: { TSUKA_DATA_DIR: path.join(home, 'data'), TSUKA_WORKSPACE: path.join(home, 'workspace'), TSUKA_STORE_URL: 'memory://' },
    workingDirectory: home,
    rootDirectory: root,
  });
  const engine = await createEngine({ config, logger: silentLogger, maskSecrets: (text) => text, discover: false });
  await engine.close();
  return { roster: engine.roster, tools: engine.tools.names() };
}

describe('checked data fingerprint', () => {
  it('records the fingerprint after a full check, and a start that trusts it builds the same roster', async () => {
    const checked = await engineRoster();
    expect((await readFile(path.join(home, 'data', CHECKED_DATA_FILE), 'utf8')).trim()).toBe(await dataFingerprint(root));
    const trusted = await engineRoster();
    expect(trusted.roster).toEqual(checked.roster);
    expect(trusted.tools).toEqual(checked.tools);
  });

  it('checks a changed file in full again: an invalid field is reported even after an earlier pass', async () => {
    await engineRoster();
    const file = path.join(root, 'characters', 'geordi.json');
    const character = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    await writeFile(file, JSON.stringify({ ...character, favouriteColour: 'blue' }));
    const failure = await engineRoster().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DataFileError);
    expect((failure as DataFileError).problems.some((problem) => problem.file.includes('geordi.json') && problem.field.includes('favouriteColour'))).toBe(true);
  });

  it('changes with any data file or schema byte', async () => {
    const before = await dataFingerprint(root);
    const file = path.join(root, 'tools_schemas', 'read_file.json');
    await writeFile(file, `${await readFile(file, 'utf8')} `);
    expect(await dataFingerprint(root)).not.toBe(before);
  });
});
