import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { DataProblem } from './data-problem.js';
import { findJsonSyntaxError } from './json-syntax-position.js';

/** One parsed `*.json` file of a data folder. */
export interface JsonDataFile {
  /** Path shown in problems: relative to the roster root with `/` separators, e.g. `teams/dev_security.json`. */
  file: string;
  /** The file name without `.json`: the entry's id. */
  name: string;
  value: unknown;
}

/** What one folder yielded: the files that parsed, the names of every `*.json` file seen, and what went wrong. */
export interface JsonFolderContents {
  files: JsonDataFile[];
  /** Every entry name found, including files that failed to parse, so references to them are not reported twice. */
  names: Set<string>;
  problems: DataProblem[];
}

/**
 * Reads every `*.json` file directly inside `directory`, in name order. Other files and sub-folders are
 * ignored. A missing folder is a problem unless `optional` is set (runtime-created folders may not exist yet).
 */
export async function readJsonFolder(rootDirectory: string, directory: string, options: { optional?: boolean } = {}): Promise<JsonFolderContents> {
  const contents: JsonFolderContents = { files: [], names: new Set(), problems: [] };
  const shownFolder = displayPath(rootDirectory, directory);
  let entries: string[];
  try {
    const dirents = await readdir(directory, { withFileTypes: true });
    entries = dirents.filter((entry) => entry.isFile() && entry.name.endsWith('.json')).map((entry) => entry.name);
  } catch (error) {
    if (isMissing(error)) {
      if (!options.optional) contents.problems.push({ file: `${shownFolder}/`, field: '/', message: 'The folder is missing.' });
      return contents;
    }
    contents.problems.push({ file: `${shownFolder}/`, field: '/', message: `The folder cannot be read: ${describe(error)}` });
    return contents;
  }

  for (const entryName of entries.sort()) {
    const file = `${shownFolder}/${entryName}`;
    const name = entryName.slice(0, -'.json'.length);
    contents.names.add(name);
    let text: string;
    try {
      text = await readFile(path.join(directory, entryName), 'utf8');
    } catch (error) {
      contents.problems.push({ file, field: '/', message: `The file cannot be read: ${describe(error)}` });
      continue;
    }
    const parsed = parseJson(text.replace(/^\uFEFF/, ''));
    if (parsed.ok) contents.files.push({ file, name, value: parsed.value });
    else contents.problems.push({ file, field: '/', message: parsed.message });
  }
  return contents;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    const position = findJsonSyntaxError(text);
    const where = position ? ` at line ${position.line}, column ${position.column}` : '';
    return { ok: false, message: `Invalid JSON${where}: ${describe(error)}` };
  }
}

function displayPath(rootDirectory: string, target: string): string {
  const relative = path.relative(rootDirectory, target);
  const shown = relative === '' || relative.startsWith('..') || path.isAbsolute(relative) ? target : relative;
  return shown.split(path.sep).join('/');
}

function isMissing(error: unknown): boolean {
  return error instanceof Error && 'code' in error && (error.code === 'ENOENT' || error.code === 'ENOTDIR');
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
