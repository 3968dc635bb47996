/**
 * Options that make a build or test command run other code than the command it looks like
 * (issue 29): `make test -f evil.mk` reads another makefile, `pytest -p plugin` imports a plugin,
 * `npm test --script-shell=./x` runs the script through another program. "Approve for this run" on
 * `make test` must not cover them, so a command carrying one is narrowed to its exact line (and its
 * reason names the option). Programs the classifier does not know are DANGEROUS anyway and never
 * covered by a grant.
 */
import type { CallRisk } from '../tools/tool.js';
import { tableFor, type OptionTable } from './code-choosing-option-tables.js';

/** An option found in a command line, and why it makes the command run other code. */
export interface CodeChoosingOption {
  option: string;
  why: string;
}

function optionName(word: string): string {
  const equals = word.indexOf('=');
  return equals === -1 ? word : word.slice(0, equals);
}

/** Whether `word` sets `option`: exactly, as `--option=…`, as an abbreviation of a long option, attached, or in a short cluster (as the table's program reads them). */
function setsOption(word: string, option: string, table: OptionTable): boolean {
  const name = optionName(word);
  if (name === option) return true;
  if (option.startsWith('--')) return table.abbreviations === true && name.startsWith('--') && name.length >= 4 && option.startsWith(name);
  if (option.length === 2) {
    if (word.startsWith('--') || !word.startsWith('-')) return false;
    // `-fevil.mk`, `-pplugin`: a short option with its value attached.
    if (word.startsWith(option)) return true;
    return (
      table.clusters &&
      /^-[A-Za-z]{2,}/.test(word) &&
      word
        .slice(1)
        .replace(/[^A-Za-z].*$/, '')
        .includes(option[1] as string)
    );
  }
  // Go's single-dash long options also take two dashes.
  return name === `-${option}`;
}

/**
 * The first option (or argument) in `words` (program first, as the shell will pass them) that makes
 * the command run other code than its grant scope says, or undefined when there is none.
 */
export function findCodeChoosingOption(words: readonly string[]): CodeChoosingOption | undefined {
  const found = tableFor(words);
  if (!found) return undefined;
  return findIn(found.table, words.slice(Math.min(found.skip, words.length)));
}

function findIn(table: OptionTable, rest: readonly string[]): CodeChoosingOption | undefined {
  for (let index = 0; index < rest.length; index += 1) {
    const word = rest[index] as string;
    if (word === '--') return table.afterDoubleDash ? findIn(table.afterDoubleDash, rest.slice(index + 1)) : undefined;
    if (word.startsWith('-') && word !== '-') {
      for (const [option, why] of Object.entries(table.options)) if (setsOption(word, option, table)) return { option, why };
      continue;
    }
    if (table.optionsEndAtPositional) return undefined;
    const why = table.positional?.(word);
    if (why) return { option: word, why };
  }
  return undefined;
}

/**
 * A RESTRICTED command with an option that chooses code: still RESTRICTED (at least), its reason
 * names the option, and "Approve for this run" covers this exact line only. Other risks pass unchanged.
 */
export function narrowCodeChoosingGrant(risk: CallRisk, words: readonly string[], command: string): CallRisk {
  if (risk.level !== 'RESTRICTED') return risk;
  const found = findCodeChoosingOption(words);
  if (!found) return risk;
  return {
    level: 'RESTRICTED',
    reason: `${risk.reason} \`${found.option}\` ${found.why}, so "Approve for this run" covers this exact command only.`,
    grantScope: command.trim(),
  };
}
