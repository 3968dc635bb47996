import { appendFileBeneath, writeFileBeneath } from '../atomic-write.js';
import { looksBinary } from '../binary-content.js';
import { countLines, formatBytes } from '../format-bytes.js';
import { contentPreview, diffPreview } from '../line-diff.js';
import type { CallPreview, ToolImplementation } from '../tool.js';
import { writeRisk } from '../git-internals.js';
import { readFileBeneath, statBeneath } from '../workspace-files.js';
import { displayPath, resolveForPreview } from '../workspace-paths.js';

/** Existing files above this size get no diff in the approval prompt (only sizes). */
const DIFF_MAX_BYTES = 1024 * 1024;

export type WriteFileInput = { path: string; content: string; append?: boolean };

/** `write_file`: creates or replaces a file (atomically), or appends to it; parent folders are created. */
export const writeFileTool: ToolImplementation<WriteFileInput> = {
  name: 'write_file',

  classify: (input, context) => writeRisk(context, input.path, { level: 'RESTRICTED', reason: 'it writes a file in the workspace' }),

  async preview(input, context): Promise<CallPreview> {
    const target = await resolveForPreview(context.workspace, input.path);
    const summary = `write_file ${target.display}${input.append ? ' (append)' : ''}`;
    if (!target.ok) return { summary, details: [`path: ${input.path}`, `refused: ${target.problem}`] };
    const bytes = Buffer.byteLength(input.content);
    const details = [`path: ${target.display}`, `size: ${formatBytes(bytes)} (${countLines(input.content)} lines)`];
    const existing = await statBeneath(context.workspace, target.absolutePath);
    if (!existing) return { summary, details: [...details, 'new file', ...(input.content.includes('\u0000') ? [] : contentPreview(input.content))] };
    if (existing.isDirectory()) return { summary, details: [...details, 'refused: the path is a directory'] };
    details.push(`${input.append ? 'appends to' : 'replaces'} an existing ${formatBytes(existing.size)} file`);
    if (input.append || existing.size > DIFF_MAX_BYTES) return { summary, details };
    const before = await readFileBeneath(context.workspace, target.absolutePath);
    if (!before || looksBinary(before)) return { summary, details };
    return { summary, details: [...details, ...diffPreview(before.toString('utf8'), input.content)] };
  },

  async execute(input, context) {
    const absolutePath = await context.workspace.resolve(input.path);
    const shown = displayPath(context.workspace, absolutePath);
    const size = formatBytes(Buffer.byteLength(input.content));
    const lines = countLines(input.content);
    if (input.append) {
      await appendFileBeneath(context.workspace, absolutePath, input.content);
      return { output: `Appended ${size} (${lines} lines) to ${shown}.`, display: size };
    }
    const { replaced } = await writeFileBeneath(context.workspace, absolutePath, input.content);
    return { output: `${replaced ? 'Replaced' : 'Created'} ${shown}: ${size}, ${lines} lines.`, display: size };
  },
};
