/**
 * What a character needs to propose a merge of a conflicting file (issue 28): the workspace's
 * version (what the parallel branches started from) and each branch's version, as text — and the
 * merged file read back from its answer. Only text files of modest size are offered; anything
 * else stays a saved conflict for a person.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { looksBinary } from '../../tools/binary-content.js';
import { createWorkspace } from '../../safety/workspace-jail.js';
import type { MergeConflict } from './merge-stagings.js';
import type { Staging } from './parallel-workspace.js';

/** Larger versions are not sent to a model: the conflict stays saved. */
export const CONFLICT_MERGE_MAX_BYTES = 64 * 1024;

export interface ConflictVersions {
  path: string;
  reason: MergeConflict['reason'];
  /** The workspace's version now (undefined: no such file). */
  base?: string;
  /** Each branch's version (undefined: the branch deleted the file). */
  branches: { label: string; content?: string }[];
}

export type ConflictVersionsResult = { ok: true; versions: ConflictVersions } | { ok: false; reason: string };

type TextRead = { ok: true; text?: string } | { ok: false; reason: string };

async function readText(absolutePath: string, shown: string): Promise<TextRead> {
  const info = await fs.lstat(absolutePath).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (!info) return { ok: true };
  if (!info.isFile()) return { ok: false, reason: `${shown} is not a plain file` };
  if (info.size > CONFLICT_MERGE_MAX_BYTES) return { ok: false, reason: `${shown} is larger than ${CONFLICT_MERGE_MAX_BYTES / 1024} KB` };
  const bytes = await fs.readFile(absolutePath);
  if (looksBinary(bytes)) return { ok: false, reason: `${shown} is binary` };
  return { ok: true, text: bytes.toString('utf8') };
}

/** Reads the versions of one conflict; the stagings must still exist (before their clean-up). */
export async function readConflictVersions(workspaceRoot: string, conflict: MergeConflict, stagings: readonly Staging[]): Promise<ConflictVersionsResult> {
  try {
    const workspace = await createWorkspace(workspaceRoot);
    const base = await readText(await workspace.resolve(conflict.path), `the workspace's ${conflict.path}`);
    if (!base.ok) return base;
    const branches: ConflictVersions['branches'] = [];
    for (const label of conflict.branches) {
      const staging = stagings.find((candidate) => candidate.label === label);
      if (!staging) return { ok: false, reason: `the copy of ${label} is gone` };
      const version = await readText(path.join(staging.root, conflict.path), `${label}'s ${conflict.path}`);
      if (!version.ok) return version;
      branches.push({ label, ...(version.text !== undefined ? { content: version.text } : {}) });
    }
    return { ok: true, versions: { path: conflict.path, reason: conflict.reason, ...(base.text !== undefined ? { base: base.text } : {}), branches } };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

/** The content of the last fenced code block of `text` (the merged file), or undefined when there is none. */
export function extractMergedFile(text: string): string | undefined {
  const blocks = [...text.matchAll(/(^|\n)(`{3,}|~{3,})[^\n]*\n([\s\S]*?)\n?\2[ \t]*(?=\n|$)/g)];
  const last = blocks.at(-1);
  if (!last) return undefined;
  const content = last[3] ?? '';
  return content.endsWith('\n') || content === '' ? content : `${content}\n`;
}
