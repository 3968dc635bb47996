/**
 * Start-up failures as a person reads them: one short line (for a broken data file, the same
 * lines `tsuka doctor` prints), and the stack only at TSUKA_LOG_LEVEL=debug.
 */
import { DataFileError, TsukaError } from '../core/errors.js';

/** One problem and its fix, as doctor prints them (`✗ text` / `→ fix`). */
export interface ProblemLine {
  text: string;
  fix?: string;
}

/** The problems of a data-file error (or any error) about `what`. */
export function dataProblemLines(what: string, error: unknown): ProblemLine[] {
  if (error instanceof DataFileError) {
    return error.problems.map((problem) => ({
      text: `${problem.file} ${problem.field}: ${problem.message}`,
      fix: `edit ${problem.file} (its JSON Schema is in ${schemaHint(problem.file)})`,
    }));
  }
  if (error instanceof TsukaError) return [{ text: `${what}: ${error.message}` }];
  return [{ text: `${what}: ${error instanceof Error ? error.message : String(error)}` }];
}

export function formatProblem(problem: ProblemLine): string {
  return `✗ ${problem.text}${problem.fix ? `\n    → ${problem.fix}` : ''}\n`;
}

/** What the command line prints for an error that ended a command. */
export function describeFailure(error: unknown, options: { debug: boolean }): string {
  let text: string;
  if (error instanceof DataFileError) text = dataProblemLines('data', error).map(formatProblem).join('');
  else if (error instanceof TsukaError) text = `${error.message}\n`;
  else
    text = `TSUKA stopped on an unexpected error: ${error instanceof Error ? error.message : String(error)}${options.debug ? '' : ' (TSUKA_LOG_LEVEL=debug shows where)'}\n`;
  return options.debug ? `${text}${stackOf(error)}` : text;
}

function stackOf(error: unknown): string {
  const lines: string[] = [];
  for (let current: unknown = error; current instanceof Error; current = current.cause)
    lines.push(current === error ? (current.stack ?? '') : `Caused by: ${current.stack ?? current.message}`);
  return lines.length ? `${lines.join('\n')}\n` : '';
}

function schemaHint(file: string): string {
  const folder = file.split('/')[0] ?? '';
  if (['roles', 'traits', 'characters', 'teams'].includes(folder)) return `src/core/data/${folder.replace(/s$/, '')}.schema.json`;
  if (folder === 'tools_schemas') return 'src/core/tools/tool-schema.schema.json';
  if (file === 'providers.json') return 'src/core/provider/providers.schema.json';
  return 'the README';
}
