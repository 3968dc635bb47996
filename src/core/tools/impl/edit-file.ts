import { writeFileBeneath } from '../atomic-write.js';
import { looksBinary } from '../binary-content.js';
import { countLines } from '../format-bytes.js';
import { DIFF_PREVIEW_MAX_LINES } from '../line-diff.js';
import type { CallPreview, ToolImplementation } from '../tool.js';
import { writeRisk } from '../git-internals.js';
import { ToolFailureError } from '../tool-failure-error.js';
import { readFileBeneath, withFileBeneath } from '../workspace-files.js';
import { displayPath, resolveForPreview } from '../workspace-paths.js';

export type EditFileInput = { path: string; targetContent: string; replacementContent: string };

/** `edit_file`: replaces exactly one occurrence of `targetContent`; zero or several is an error. */
export const editFileTool: ToolImplementation<EditFileInput> = {
  name: 'edit_file',

  classify: (input, context) => writeRisk(context, input.path, { level: 'RESTRICTED', reason: 'it edits a file in the workspace' }),

  async preview(input, context): Promise<CallPreview> {
    const target = await resolveForPreview(context.workspace, input.path);
    const summary = `edit_file ${target.display}`;
    const changes = [...previewLines('-', input.targetContent), ...previewLines('+', input.replacementContent)];
    if (!target.ok) return { summary, details: [`path: ${input.path}`, `refused: ${target.problem}`] };
    const bytes = await readFileBeneath(context.workspace, target.absolutePath);
    if (!bytes) return { summary, details: [`path: ${target.display} (does not exist; the edit will fail)`, ...changes] };
    const content = bytes.toString('utf8');
    const index = content.indexOf(input.targetContent);
    const where = index >= 0 ? ` at line ${countLines(content.slice(0, index + 1))}` : ' (target not found; the edit will fail)';
    return { summary, details: [`path: ${target.display}${where}`, ...changes] };
  },

  async execute(input, context) {
    const absolutePath = await context.workspace.resolve(input.path);
    const shown = displayPath(context.workspace, absolutePath);
    // Read through the descriptor: what is edited is what was checked, whatever is swapped meanwhile.
    const bytes = await withFileBeneath(context.workspace, absolutePath, async ({ handle, stats }) => {
      if (!stats.isFile()) throw new ToolFailureError(`${shown} is not a regular file.`);
      return handle.readFile();
    });
    if (!bytes) throw new ToolFailureError(`${shown} does not exist; use write_file to create it.`);
    if (looksBinary(bytes)) throw new ToolFailureError(`${shown} is a binary file; edit_file only edits text.`);
    if (input.targetContent === '') throw new ToolFailureError('targetContent is empty; give the exact text to replace.');
    const content = bytes.toString('utf8');
    let target = input.targetContent;
    let replacement = input.replacementContent;
    let positions = findAll(content, target);
    if (positions.length === 0 && content.includes('\r\n') && !target.includes('\r\n')) {
      // Models write `\n`; a Windows-style file needs the same text with `\r\n`.
      target = target.replace(/\n/g, '\r\n');
      replacement = replacement.replace(/\n/g, '\r\n');
      positions = findAll(content, target);
    }
    if (positions.length === 0) {
      const hint =
        findAll(content, input.targetContent.trim()).length > 0
          ? ' It does match once leading/trailing whitespace is ignored: copy the exact indentation and line breaks.'
          : ' Check whitespace and indentation, or read_file the region and copy the exact text.';
      throw new ToolFailureError(`targetContent was not found in ${shown} (0 occurrences).${hint}`);
    }
    if (positions.length > 1) {
      const lines = positions.slice(0, 10).map((position) => countLines(content.slice(0, position + 1)));
      throw new ToolFailureError(
        `targetContent occurs ${positions.length} times in ${shown} (lines ${lines.join(', ')}); include more surrounding lines so it matches exactly once.`,
      );
    }
    const position = positions[0] as number;
    const updated = content.slice(0, position) + replacement + content.slice(position + target.length);
    await writeFileBeneath(context.workspace, absolutePath, updated);
    const removed = countLines(target);
    const added = countLines(replacement);
    const line = countLines(content.slice(0, position + 1));
    return { output: `Edited ${shown} at line ${line}: replaced ${removed} line(s) with ${added}.`, display: `-${removed} +${added} lines` };
  },
};

function findAll(content: string, target: string): number[] {
  if (target === '') return [];
  const positions: number[] = [];
  for (let index = content.indexOf(target); index !== -1; index = content.indexOf(target, index + target.length)) {
    positions.push(index);
  }
  return positions;
}

function previewLines(sign: '-' | '+', text: string): string[] {
  const lines = text.split('\n');
  const shown = lines.slice(0, DIFF_PREVIEW_MAX_LINES).map((line) => `${sign} ${line}`);
  if (lines.length > DIFF_PREVIEW_MAX_LINES) shown.push(`${sign} … ${lines.length - DIFF_PREVIEW_MAX_LINES} more lines`);
  return shown;
}
