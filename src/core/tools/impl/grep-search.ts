import { looksBinary } from '../binary-content.js';
import type { ToolImplementation } from '../tool.js';
import { ToolFailureError } from '../tool-failure-error.js';
import { walkFiles } from '../walk-files.js';
import { statBeneath } from '../workspace-files.js';
import { displayPath } from '../workspace-paths.js';

export const GREP_MAX_MATCHES = 200;
/** Files larger than this are skipped: logs and bundles rarely hold what the model looks for. */
export const GREP_MAX_FILE_BYTES = 1024 * 1024;
const MAX_MATCH_LINE_CHARACTERS = 240;

export type GrepSearchInput = { query: string; path?: string };

/** `grep_search`: literal, case-insensitive search in text files, `file:line: text` per match. */
export const grepSearchTool: ToolImplementation<GrepSearchInput> = {
  name: 'grep_search',

  preview: (input) => ({ summary: `grep_search "${input.query}"${input.path ? ` in ${input.path}` : ''}` }),

  async execute(input, context) {
    if (input.query === '') throw new ToolFailureError('query is empty; give the text to look for.');
    const start = await context.workspace.resolve(input.path ?? '.');
    const shown = displayPath(context.workspace, start);
    if (!(await statBeneath(context.workspace, start))) throw new ToolFailureError(`${shown} does not exist.`);
    const needle = input.query.toLowerCase();
    const matches: string[] = [];
    let filesSearched = 0;
    let capped = false;
    search: for await (const file of walkFiles(context.workspace, start, { signal: context.signal })) {
      if (file.size > GREP_MAX_FILE_BYTES || file.size === 0) continue;
      const bytes = await file.read();
      if (!bytes || looksBinary(bytes)) continue;
      filesSearched += 1;
      const relative = displayPath(context.workspace, file.absolutePath);
      const lines = bytes.toString('utf8').split('\n');
      for (let index = 0; index < lines.length; index += 1) {
        const line = lines[index] ?? '';
        if (!line.toLowerCase().includes(needle)) continue;
        if (matches.length === GREP_MAX_MATCHES) {
          capped = true;
          break search;
        }
        const text = line.trim();
        matches.push(`${relative}:${index + 1}: ${text.length > MAX_MATCH_LINE_CHARACTERS ? `${text.slice(0, MAX_MATCH_LINE_CHARACTERS)}…` : text}`);
      }
    }
    if (matches.length === 0) {
      return { output: `No matches for "${input.query}" in ${shown} (${filesSearched} files searched).`, display: '0 matches' };
    }
    const note = capped ? `\n[stopped at ${GREP_MAX_MATCHES} matches; narrow the path or the query]` : '';
    const count = `${matches.length}${capped ? '+' : ''} matches`;
    return { output: `${matches.join('\n')}${note}`, display: count };
  },
};
