import { createInterface } from 'node:readline';
import { isBinaryHandle } from '../binary-content.js';
import { INBOX_FOLDER } from '../inbox-folder.js';
import { formatBytes } from '../format-bytes.js';
import type { ToolImplementation } from '../tool.js';
import { ToolFailureError } from '../tool-failure-error.js';
import { type OpenedWorkspaceFile, withFileBeneath } from '../workspace-files.js';
import { displayPath } from '../workspace-paths.js';

/** Lines returned when the model gives no `limit`. */
export const READ_FILE_DEFAULT_LIMIT = 400;
export const READ_FILE_MAX_LIMIT = 2000;
/** Longer lines are cut so one minified line cannot fill the context. */
const MAX_LINE_CHARACTERS = 2000;

export type ReadFileInput = { path: string; offset?: number; limit?: number };

/** Where attachments are saved (`src/commands/context/inbox-names.ts`): what they say is untrusted text (issue 41). */
const INBOX_PREFIX = `${INBOX_FOLDER}/`;

/** `read_file`: numbered lines of a text file, paged with offset (1-based line) and limit. */
export const readFileTool: ToolImplementation<ReadFileInput> = {
  name: 'read_file',

  preview: (input) => ({ summary: `read_file ${input.path}${input.offset && input.offset > 1 ? ` (from line ${input.offset})` : ''}` }),

  async execute(input, context) {
    const absolutePath = await context.workspace.resolve(input.path);
    const shown = displayPath(context.workspace, absolutePath);
    const result = await withFileBeneath(context.workspace, absolutePath, (file) => readLines(file, shown, input, context.signal));
    if (!result) throw new ToolFailureError(`${shown} does not exist.`);
    return shown.startsWith(INBOX_PREFIX) ? { ...result, untrusted: 'attached files (.tsuka/inbox)' } : result;
  },
};

/** Numbered lines of the open file (the descriptor, never the path again). */
async function readLines(file: OpenedWorkspaceFile, shown: string, input: ReadFileInput, signal: AbortSignal): Promise<{ output: string; display: string }> {
  const { handle, stats } = file;
  if (stats.isDirectory()) throw new ToolFailureError(`${shown} is a directory; use list_dir to see what it contains.`);
  if (await isBinaryHandle(handle)) {
    throw new ToolFailureError(`${shown} is a binary file (${formatBytes(stats.size)}); read_file only shows text.`);
  }
  const offset = Math.max(1, Math.floor(input.offset ?? 1));
  const limit = Math.min(READ_FILE_MAX_LIMIT, Math.max(1, Math.floor(input.limit ?? READ_FILE_DEFAULT_LIMIT)));
  const last = offset + limit - 1;
  const lines: { number: number; text: string }[] = [];
  let total = 0;
  const reader = createInterface({
    input: handle.createReadStream({ encoding: 'utf8', signal, autoClose: false, start: 0 }),
    crlfDelay: Infinity,
  });
  for await (const line of reader) {
    total += 1;
    if (total >= offset && total <= last) {
      const text = line.length > MAX_LINE_CHARACTERS ? `${line.slice(0, MAX_LINE_CHARACTERS)}… (line cut at ${MAX_LINE_CHARACTERS} characters)` : line;
      lines.push({ number: total, text });
    }
  }
  const size = formatBytes(stats.size);
  if (total === 0) return { output: `${shown} is empty (0 lines).`, display: size };
  if (offset > total) throw new ToolFailureError(`offset ${offset} is past the end of ${shown}, which has ${total} lines.`);
  const end = Math.min(last, total);
  const width = String(end).length;
  const numbered = lines.map((line) => `${String(line.number).padStart(width)}\t${line.text}`);
  const header = `${shown} — lines ${offset}–${end} of ${total} (${size})`;
  const footer = end < total ? `\n[lines ${offset}–${end} of ${total}; continue with offset=${end + 1}]` : '';
  return { output: `${header}\n${numbered.join('\n')}${footer}`, display: size };
}
