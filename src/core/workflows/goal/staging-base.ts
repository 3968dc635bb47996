/**
 * A staging copy's base manifest, kept beside the copy (`<label>.base.json`, never inside it): a
 * branch that finished before a restart can then still be merged with its group on Resume —
 * its changes are found against what the workspace held when the copy was made.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Manifest } from './workspace-manifest.js';

export const stagingBasePath = (stagingRoot: string, label: string): string => path.join(stagingRoot, `${label}.base.json`);

export async function saveStagingBase(stagingRoot: string, label: string, base: Manifest): Promise<void> {
  const file = stagingBasePath(stagingRoot, label);
  const temporary = `${file}.tmp`;
  await fs.writeFile(temporary, JSON.stringify([...base]));
  // Renamed into place: a copy is never reopened with half a manifest.
  await fs.rename(temporary, file);
}

/** The saved base, or undefined when there is none (the copy predates it, or it was removed). */
export async function readStagingBase(stagingRoot: string, label: string): Promise<Manifest | undefined> {
  let text: string;
  try {
    text = await fs.readFile(stagingBasePath(stagingRoot, label), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const entries: unknown = JSON.parse(text);
  if (!Array.isArray(entries) || !entries.every((entry) => Array.isArray(entry) && typeof entry[0] === 'string' && typeof entry[1] === 'string'))
    return undefined;
  return new Map(entries as [string, string][]);
}
