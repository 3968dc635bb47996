/**
 * The chat inbox in a staging copy (issue 35). A parallel /goal step works in a copy that leaves
 * `.tsuka` out — the harness's own files: created tools and roles, conflict copies, the staging
 * folder itself — yet the files people attach to the conversation are saved in `.tsuka/inbox`
 * (`INBOX_FOLDER`), and a step asked about an attachment has to read it. So the inbox alone is
 * copied in, its files read-only. Nothing else of `.tsuka` is, and since every manifest skips
 * `.tsuka` by name (`STAGING_SKIPPED_DIRECTORIES`), nothing a step writes there is merged back.
 *
 * A copy, not a link or a bind: the file tools go through the jail, which refuses a path whose
 * real location is outside the copy, so only files inside it can be read by both the tools and
 * the sandboxed commands.
 */
import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { INBOX_FOLDER } from '../../tools/inbox-folder.js';
import { walkTree } from './workspace-manifest.js';

/** The inbox's path in the copy, relative to it. */
export const STAGED_INBOX = path.join(...INBOX_FOLDER.split('/'));

/**
 * Copies `<workspace>/.tsuka/inbox` into the copy: folders and regular files (read-only), never a
 * link. Returns the inbox's relative path, or undefined when the workspace has none — or when
 * `.tsuka` or the inbox is not a real folder (a link could lead anywhere: nothing is copied then).
 */
export async function copyInboxIntoStaging(realWorkspace: string, stagingCopy: string, signal?: AbortSignal): Promise<string | undefined> {
  const source = path.join(realWorkspace, STAGED_INBOX);
  let folder = realWorkspace;
  for (const segment of STAGED_INBOX.split(path.sep)) {
    folder = path.join(folder, segment);
    const info = await fs.lstat(folder).catch(() => undefined);
    if (!info?.isDirectory()) return undefined;
  }
  if ((await fs.realpath(source)) !== source) return undefined;
  const target = path.join(stagingCopy, STAGED_INBOX);
  await fs.mkdir(target, { recursive: true });
  for await (const entry of walkTree(source, { signal })) {
    const destination = path.join(target, entry.relativePath);
    if (entry.kind === 'dir') {
      await fs.mkdir(destination, { recursive: true });
    } else if (entry.kind === 'file') {
      // A clone where the file system can make one (no bytes copied), else a copy.
      await fs.copyFile(entry.absolutePath, destination, constants.COPYFILE_FICLONE);
      await fs.chmod(destination, 0o444);
    }
  }
  return STAGED_INBOX;
}
