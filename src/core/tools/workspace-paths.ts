import type { Workspace } from './tool.js';

/** Workspace-relative path for display; the root itself shows as `.`. */
export function displayPath(workspace: Workspace, absolutePath: string): string {
  const relative = workspace.relative(absolutePath);
  return relative === '' ? '.' : relative;
}

/**
 * Resolves for a preview: previews must never throw on a bad path (the call itself will be
 * refused), so an escape becomes a readable note instead.
 */
export async function resolveForPreview(
  workspace: Workspace,
  requested: string,
): Promise<{ ok: true; absolutePath: string; display: string } | { ok: false; display: string; problem: string }> {
  try {
    const absolutePath = await workspace.resolve(requested);
    return { ok: true, absolutePath, display: displayPath(workspace, absolutePath) };
  } catch (error) {
    const problem = error instanceof Error ? error.message : String(error);
    return { ok: false, display: requested, problem };
  }
}
