/**
 * The workspace jail: every path a tool touches goes through `resolve`, which refuses anything
 * that lands outside the root — by `..`, by an absolute path, or through a symlink (design §6.10).
 */
import fs from 'node:fs';
import path from 'node:path';
import { TsukaError, WorkspaceEscapeError } from '../errors.js';
import type { Workspace } from '../tools/tool.js';
import { isInside, realpathAllowMissing } from './real-path.js';

export { isInside } from './real-path.js';

/** Creates the root when missing and returns the jailed view of it (root stored as its realpath). */
export async function createWorkspace(root: string): Promise<Workspace> {
  const givenRoot = path.resolve(root);
  try {
    await fs.promises.mkdir(givenRoot, { recursive: true });
  } catch (error) {
    throw new TsukaError('workspace_unavailable', `The workspace folder "${givenRoot}" cannot be created.`, { cause: error });
  }
  const realRoot = await fs.promises.realpath(givenRoot);

  async function resolve(requested: string): Promise<string> {
    if (typeof requested !== 'string') throw new WorkspaceEscapeError(String(requested));
    if (requested.includes('\0')) throw new WorkspaceEscapeError(requested.replaceAll('\0', '\\0'));
    // An absolute path may name the root as configured (possibly through a symlink) or as resolved.
    const lexical = path.resolve(realRoot, requested);
    const base = path.isAbsolute(requested) && isInside(givenRoot, lexical) && !isInside(realRoot, lexical) ? givenRoot : realRoot;
    if (!isInside(base, lexical)) throw new WorkspaceEscapeError(requested);
    let real: string;
    try {
      real = await realpathAllowMissing(lexical);
    } catch (error) {
      // A loop or an unreadable ancestor: we cannot prove the path stays inside, so refuse it.
      throw new WorkspaceEscapeError(requested, { cause: error });
    }
    if (!isInside(realRoot, real)) throw new WorkspaceEscapeError(requested);
    return real;
  }

  function relative(absolutePath: string): string {
    const from = isInside(givenRoot, absolutePath) && !isInside(realRoot, absolutePath) ? givenRoot : realRoot;
    const shown = path.relative(from, absolutePath);
    return shown === '' ? '.' : shown;
  }

  return { root: realRoot, resolve, relative };
}
