/**
 * Where chat attachments land, relative to a conversation's workspace (issue 23): written by
 * `src/commands/context/inbound-files.ts`, marked untrusted by `read_file`, and copied into the staging
 * copies of parallel /goal steps (`src/core/workflows/goal/staging-inbox.ts`) so they can read it.
 */
export const INBOX_FOLDER = '.tsuka/inbox';
