/**
 * A staging copy's base, kept beside the copy (`<label>.base.json`, never inside it): a branch
 * that finished before a restart can then still be merged with its group on Resume — its changes
 * are found against what the workspace held when the copy was made. Holds the workspace's entries
 * then, the staging's own file stamps (so the diff reads only written files) and how it was made.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { StagingMode } from './staging-copy.js';
import type { Manifest } from './workspace-manifest.js';

export const stagingBasePath = (stagingRoot: string, label: string): string => path.join(stagingRoot, `${label}.base.json`);

export interface SavedBase {
  base: Manifest;
  /** Empty for a base saved before stamps (every file is then hashed by the diff). */
  stamps: Map<string, string>;
  workspaceRoot?: string;
  mode?: StagingMode;
}

export async function saveStagingBase(stagingRoot: string, label: string, saved: SavedBase): Promise<void> {
  const file = stagingBasePath(stagingRoot, label);
  const temporary = `${file}.tmp`;
  const { base, stamps, workspaceRoot, mode } = saved;
  await fs.writeFile(temporary, JSON.stringify({ version: 2, base: [...base], stamps: [...stamps], workspaceRoot, mode }));
  // Renamed into place: a copy is never reopened with half a manifest.
  await fs.rename(temporary, file);
}

/** The saved base, or undefined when there is none (the copy predates it, or it was removed). */
export async function readStagingBase(stagingRoot: string, label: string): Promise<SavedBase | undefined> {
  let text: string;
  try {
    text = await fs.readFile(stagingBasePath(stagingRoot, label), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const saved: unknown = JSON.parse(text);
  // A base saved before stamps is the bare list of entries.
  if (Array.isArray(saved)) return isPairs(saved) ? { base: new Map(saved), stamps: new Map() } : undefined;
  if (typeof saved !== 'object' || saved === null) return undefined;
  const { base, stamps, workspaceRoot, mode } = saved as Record<string, unknown>;
  if (!isPairs(base) || !isPairs(stamps)) return undefined;
  return {
    base: new Map(base),
    stamps: new Map(stamps),
    ...(typeof workspaceRoot === 'string' ? { workspaceRoot } : {}),
    ...(mode === 'reflink' || mode === 'hardlink' || mode === 'copy' ? { mode } : {}),
  };
}

function isPairs(value: unknown): value is [string, string][] {
  return Array.isArray(value) && value.every((entry) => Array.isArray(entry) && typeof entry[0] === 'string' && typeof entry[1] === 'string');
}
