/**
 * Folders that must be prepared before any command runs in them (issue 42): a /goal staging made
 * of hard links shares its files' inodes with the real workspace, so a command writing a file in
 * place would write the real one. Its files are made private first; `runCommand` waits for that,
 * and a preparation that fails refuses the command (fails closed).
 */
import fs from 'node:fs';
import path from 'node:path';
import { TsukaError } from '../errors.js';
import { isInside } from './real-path.js';

const pending = new Map<string, () => Promise<void>>();

/** Registers `root` (a realpath): `prepare` runs before the first command in it. Returns the unregistration. */
export function prepareBeforeCommands(root: string, prepare: () => Promise<void>): () => void {
  pending.set(root, prepare);
  return () => {
    if (pending.get(root) === prepare) pending.delete(root);
  };
}

/** Runs the preparation of every registered folder that holds `folder` (the command's root). */
export async function prepareCommandFolder(folder: string): Promise<void> {
  const real = realFolder(folder);
  for (const [root, prepare] of pending) {
    if (!isInside(root, real)) continue;
    try {
      await prepare();
    } catch (error) {
      throw new TsukaError('command_folder_unprepared', `The command was not run: the files of "${root}" could not be made private first.`, {
        cause: error,
      });
    }
  }
}

function realFolder(folder: string): string {
  try {
    return fs.realpathSync(folder);
  } catch {
    return path.resolve(folder);
  }
}
