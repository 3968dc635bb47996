/**
 * Start-up without recompiling JSON Schemas: a fingerprint of every data file and of the schemas
 * they are checked against. After a full check passes, it is written to the data folder; a later
 * start whose files hash the same skips the schema compilation (the loaders still check names and
 * references). Any changed byte — a data file, a schema, this package's version — means a full check.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { makePrivateFolder, writePrivateFile } from '../core/store/private-files.js';
import path from 'node:path';

/** The data folders the engine validates at start, relative to the package root. */
const DATA_FOLDERS = ['roles', 'traits', 'characters', 'teams', 'tools_schemas'];
/** The schemas those folders are checked against, relative to this module. */
const SCHEMA_FILES = [
  '../core/data/role.schema.json',
  '../core/data/trait.schema.json',
  '../core/data/character.schema.json',
  '../core/data/team.schema.json',
  '../core/tools/tool-schema.schema.json',
];
/** Where the fingerprint of the last fully checked data lives, inside the data folder. */
export const CHECKED_DATA_FILE = 'checked-data.sha256';

/** A SHA-256 over the names and bytes of every data file and schema, and the package version. */
export async function dataFingerprint(rootDirectory: string): Promise<string> {
  const hash = createHash('sha256');
  const add = (name: string, content: Buffer | string) => hash.update(`${name}\u0000${content.length}\u0000`).update(content);
  add('package.json', await readFile(path.join(rootDirectory, 'package.json')).catch(() => ''));
  for (const schema of SCHEMA_FILES) add(schema, await readFile(new URL(schema, import.meta.url)));
  for (const folder of DATA_FOLDERS) {
    const names = (await readdir(path.join(rootDirectory, folder)).catch(() => [] as string[])).filter((name) => name.endsWith('.json')).sort();
    const contents = await Promise.all(names.map((name) => readFile(path.join(rootDirectory, folder, name))));
    names.forEach((name, index) => add(`${folder}/${name}`, contents[index]!));
  }
  return hash.digest('hex');
}

/** True when the data folder records that files with this fingerprint passed the full check. */
export async function wasChecked(dataDirectory: string, fingerprint: string): Promise<boolean> {
  const recorded = await readFile(path.join(dataDirectory, CHECKED_DATA_FILE), 'utf8').catch(() => '');
  return recorded.trim() === fingerprint;
}

/** Records that files with this fingerprint passed the full check. */
export async function recordChecked(dataDirectory: string, fingerprint: string): Promise<void> {
  await makePrivateFolder(dataDirectory);
  await writePrivateFile(path.join(dataDirectory, CHECKED_DATA_FILE), `${fingerprint}\n`);
}
