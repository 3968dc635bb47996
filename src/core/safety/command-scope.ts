/**
 * What "Approve for this run" on one command covers (design §2.2, issue 17): the same program
 * with the same subcommand — `npm test`, `git add`, `mkdir` — and, where the next word picks the
 * code that runs, that word too (`npm run build`, `node report.js`, `make test`). A grant for
 * `mkdir` therefore never lets `node evil.js` through.
 */
import { PROGRAM_RULES } from './command-rules.js';

/** Programs whose first positional argument names the code they run (a script or a target). */
const FIRST_POSITIONAL_PICKS_CODE: ReadonlySet<string> = new Set(['node', 'python', 'python3', 'make']);
/** Subcommands whose next word names the script they run. */
const SCRIPT_SUBCOMMANDS: ReadonlySet<string> = new Set(['npm run', 'npm run-script']);

/**
 * The scope of a grant for the command whose words are `words` (program first), or undefined
 * when the program is not one the classifier knows (such a command is DANGEROUS anyway).
 */
export function commandGrantScope(words: readonly string[]): string | undefined {
  const [program, ...args] = words;
  if (program === undefined || !Object.hasOwn(PROGRAM_RULES, program)) return undefined;
  const rule = PROGRAM_RULES[program];
  const variant = rule?.variants?.find((candidate) => candidate.prefix.every((part, index) => args[index] === part));
  if (variant) return [program, ...variant.prefix].join(' ');
  if (rule?.subcommands) {
    const subcommand = args[0];
    if (subcommand === undefined || subcommand.startsWith('-')) return program;
    const scope = `${program} ${subcommand}`;
    const script = args[1];
    return SCRIPT_SUBCOMMANDS.has(scope) && script !== undefined && !script.startsWith('-') ? `${scope} ${script}` : scope;
  }
  if (FIRST_POSITIONAL_PICKS_CODE.has(program)) {
    const target = args.find((word) => !word.startsWith('-'));
    return target === undefined ? program : `${program} ${target}`;
  }
  return program;
}
