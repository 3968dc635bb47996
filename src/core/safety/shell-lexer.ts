/**
 * A deliberately small POSIX shell-word lexer for the command classifier. It does not try to
 * understand the shell: it splits plain words and refuses (with a reason) as soon as it meets
 * anything that would let the shell do more than run one program with literal arguments.
 */

/** One word after quote removal. */
export interface ShellWord {
  /** The word as the program would receive it (quotes and escapes removed). */
  text: string;
  /** Whether the shell would glob-expand it (an unquoted `*`, `?` or `[`). */
  hasGlob: boolean;
  /** Whether an unquoted `{…,…}` or `{a..b}` could brace-expand it (bash-compatible shells). */
  hasBraceExpansion: boolean;
  /** Whether any part of it was quoted or escaped (so it cannot be an assignment or a tilde). */
  quoted: boolean;
}

/** Either the plain words of a single simple command, or why the line is more than that. */
export type LexResult = { ok: true; words: ShellWord[] } | { ok: false; reason: string };

const OPERATOR_REASONS: Readonly<Record<string, string>> = {
  ';': 'It chains commands with `;`.',
  '&': 'It uses `&` (background job or `&&`).',
  '|': 'It uses a pipe or `||`.',
  '>': 'It redirects output with `>`.',
  '<': 'It redirects input with `<` (or a here-doc / process substitution).',
  '(': 'It uses `(`, a subshell or process substitution.',
  ')': 'It uses `)`, a subshell or process substitution.',
  '\n': 'It contains a line break, which starts another command.',
  '\r': 'It contains a carriage return.',
};

const EXPANSION_REASON = 'It expands a variable or substitutes a command (`$`), so what runs is not what is shown.';
const BACKTICK_REASON = 'It substitutes a command with backticks.';

/** Characters after `$` that start an expansion; a lone `$` before a blank or the end is literal. */
const EXPANSION_START = /[A-Za-z0-9_{([@*#?$!-]/;

/**
 * Splits `command` into words, or says why it will not. Quote-aware: `grep ";" a.txt` is three
 * plain words, `echo $HOME` is refused.
 */
export function lexShellCommand(command: string): LexResult {
  const words: ShellWord[] = [];
  let current: ShellWord | undefined;
  const word = (): ShellWord => (current ??= { text: '', hasGlob: false, hasBraceExpansion: false, quoted: false });
  let braceOpen = false;
  let index = 0;

  const fail = (reason: string): LexResult => ({ ok: false, reason });

  while (index < command.length) {
    const char = command[index] as string;
    const code = char.charCodeAt(0);

    if (char === ' ' || char === '\t') {
      if (current) words.push(current);
      current = undefined;
      braceOpen = false;
      index += 1;
      continue;
    }
    const operatorReason = OPERATOR_REASONS[char];
    if (operatorReason) return fail(operatorReason);
    if (code < 0x20 || code === 0x7f) return fail('It contains a control character.');
    if (char === '`') return fail(BACKTICK_REASON);
    if (char === '$') {
      const next = command[index + 1];
      if (next !== undefined && EXPANSION_START.test(next)) return fail(EXPANSION_REASON);
      if (next === "'" || next === '"') return fail('It uses `$\'…\'` or `$"…"` quoting.');
      word().text += '$';
      index += 1;
      continue;
    }
    if (char === '#' && current === undefined) return fail('It contains a shell comment (`#`).');
    if (char === '~' && (current === undefined || /[=:]$/.test(current.text)) && !current?.quoted) {
      return fail('It refers to a home directory with `~`, outside the workspace.');
    }
    if (char === '\\') {
      const next = command[index + 1];
      if (next === undefined) return fail('It ends with a dangling backslash.');
      if (next === '\n') {
        index += 2;
        continue;
      }
      const target = word();
      target.text += next;
      target.quoted = true;
      index += 2;
      continue;
    }
    if (char === "'") {
      const end = command.indexOf("'", index + 1);
      if (end === -1) return fail('It has an unterminated single quote.');
      const target = word();
      target.text += command.slice(index + 1, end);
      target.quoted = true;
      index = end + 1;
      continue;
    }
    if (char === '"') {
      const target = word();
      target.quoted = true;
      index += 1;
      let closed = false;
      while (index < command.length) {
        const inner = command[index] as string;
        if (inner === '"') {
          closed = true;
          index += 1;
          break;
        }
        if (inner === '`') return fail(BACKTICK_REASON);
        if (inner === '$') {
          const next = command[index + 1];
          if (next !== undefined && EXPANSION_START.test(next)) return fail(EXPANSION_REASON);
        }
        if (inner === '\\') {
          const next = command[index + 1];
          if (next !== undefined && '$`"\\'.includes(next)) {
            target.text += next;
            index += 2;
            continue;
          }
          if (next === '\n') {
            index += 2;
            continue;
          }
        }
        target.text += inner;
        index += 1;
      }
      if (!closed) return fail('It has an unterminated double quote.');
      continue;
    }

    const target = word();
    if (char === '*' || char === '?' || char === '[') target.hasGlob = true;
    if (char === '{') braceOpen = true;
    if (braceOpen && (char === ',' || (char === '.' && command[index + 1] === '.'))) target.hasBraceExpansion = true;
    target.text += char;
    index += 1;
  }
  if (current) words.push(current);
  return { ok: true, words };
}
