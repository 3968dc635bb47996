/**
 * Approval cards never show where the workspace lives on the host (issue 40): a person decides on
 * what the call does inside the workspace, and the host's folder layout is nobody's business in a
 * chat channel. Every occurrence of the workspace root in a preview becomes the word `<workspace>`
 * (`/srv/tsuka/ws/src/a.ts` → `<workspace>/src/a.ts`): the command shown keeps its meaning — it is not
 * rewritten to a relative path, which would read differently from another folder.
 */
import path from 'node:path';
import type { CallPreview, Workspace } from './tool.js';

export const WORKSPACE_WORD = '<workspace>';

function hideRoot(text: string, root: string): string {
  if (root === '' || root === '/' || !text.includes(root)) return text;
  return text.split(root).join(WORKSPACE_WORD);
}

/** The preview with the workspace root taken out of its summary and every detail line. */
export function withoutHostPaths(preview: CallPreview, workspace: Pick<Workspace, 'root'>): CallPreview {
  return {
    ...preview,
    summary: hideRoot(preview.summary, workspace.root),
    ...(preview.details ? { details: preview.details.map((line) => hideRoot(line, workspace.root)) } : {}),
  };
}

/** Where a command runs, as a card shows it: relative to the workspace (`.` for its root). */
export function displayCwd(workspace: Pick<Workspace, 'root' | 'relative'>, cwd: string): string {
  if (cwd === workspace.root) return WORKSPACE_WORD;
  const relative = workspace.relative(cwd);
  return relative.startsWith('..') || path.isAbsolute(relative) ? '(outside the workspace)' : `${WORKSPACE_WORD}/${relative}`;
}
