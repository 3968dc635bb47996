/**
 * The command classifier (design §5 "Risk", §6.8). Conservative by construction: a line is SAFE
 * or RESTRICTED only when it is one known program with literal arguments that stay inside the
 * workspace; everything else is DANGEROUS and always asks a person.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { CallRisk, RiskLevel } from '../tools/tool.js';
import { DANGEROUS_PROGRAM_REASONS, PROGRAM_RULES, type ProgramRule } from './command-rules.js';
import { commandGrantScope } from './command-scope.js';
import { GIT_FOLDER_WRITE_REASON, gitFolderWriteReason } from './git-dirs.js';
import { narrowCodeChoosingGrant } from './code-choosing-options.js';
import { repositoryConfigKeysSync, unneutralisableKeys } from './git-repository-config.js';
import { isInside, realpathAllowMissingSync } from './real-path.js';
import { lexShellCommand, type ShellWord } from './shell-lexer.js';

/** Where the command would run. */
export interface CommandLocation {
  workspaceRoot: string;
  /** Working directory, absolute or relative to the root (default: the root). */
  cwd?: string;
  /** The PATH commands run with (to find git when its repository config must be read). */
  path?: string;
}

interface PathContext {
  root: string;
  realRoot: string;
  cwd: string;
}

const RANK: Readonly<Record<RiskLevel, number>> = { SAFE: 0, RESTRICTED: 1, DANGEROUS: 2 };
const dangerous = (reason: string): CallRisk => ({ level: 'DANGEROUS', reason });
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;
const GLOB_CHARACTER = /[*?[]/;
/** Entries a wildcard's folder may hold before the classifier stops listing it and asks instead. */
const MAX_GLOB_FOLDER_ENTRIES = 5000;

function own<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

function realRootOf(root: string): string {
  try {
    return fs.realpathSync(root);
  } catch (error) {
    // A workspace that does not exist yet has no symlinks to follow; judge it by its name.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return root;
    throw error;
  }
}

/** Why `text`, used as a path from the command's cwd, lands outside the workspace; undefined when inside. */
function outsideReason(text: string, context: PathContext): string | undefined {
  if (text === '') return undefined;
  const lexical = path.resolve(context.cwd, text);
  const outside = `It refers to "${text}", which is outside the workspace.`;
  if (!isInside(context.root, lexical) && !isInside(context.realRoot, lexical)) return outside;
  try {
    if (!isInside(context.realRoot, realpathAllowMissingSync(lexical))) return `"${text}" leads outside the workspace through a symbolic link.`;
  } catch {
    return `"${text}" cannot be resolved safely (symbolic link loop or unreadable folder).`;
  }
  return undefined;
}

/** Glob and brace expansion can reach paths the literal text does not show. */
function expansionReason(word: ShellWord, context: PathContext): string | undefined {
  if (word.hasBraceExpansion) return 'It uses brace expansion (`{a,b}`), so the real arguments are not shown.';
  if (!word.hasGlob) return undefined;
  if (path.isAbsolute(word.text)) return 'It expands a wildcard in an absolute path, outside the workspace.';
  const segments = word.text.split('/');
  for (const segment of segments) {
    if (segment === '..') return 'It expands a wildcard next to `..`, which may leave the workspace.';
    if (GLOB_CHARACTER.test(segment) && /^[.[]/.test(segment)) return 'Its wildcard may match `..`, which leaves the workspace.';
  }
  // A wildcard folder (`vendor/*/passwd`) can pass through any link below it; one readdir cannot vouch for that.
  if (segments.slice(0, -1).some((segment) => GLOB_CHARACTER.test(segment))) {
    return `"${word.text}" has a wildcard in a folder name, which could pass through a link that leads outside the workspace.`;
  }
  return wildcardLinkReason(word.text, segments.slice(0, -1).join('/'), context);
}

/**
 * Why a wildcard in the last component of `text` could reach outside: the literal parent folder
 * holds a symbolic link that resolves outside the workspace (the shell would expand to it).
 */
function wildcardLinkReason(text: string, parentText: string, context: PathContext): string | undefined {
  const parentReason = outsideReason(parentText, context);
  if (parentReason) return parentReason;
  const parent = path.resolve(context.cwd, parentText);
  const linkReason = `"${text}": wildcards could match a link that leads outside the workspace.`;
  let directory: fs.Dir;
  try {
    directory = fs.opendirSync(parent);
  } catch (error) {
    // No folder means nothing to match: the shell passes the word through literally.
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    return `"${text}": its folder cannot be read, so what the wildcard matches is unknown.`;
  }
  try {
    for (let count = 0; ; count += 1) {
      const entry = directory.readSync();
      if (!entry) return undefined;
      if (count >= MAX_GLOB_FOLDER_ENTRIES) return `"${text}": its folder has too many entries to check what the wildcard matches.`;
      if (!entry.isSymbolicLink()) continue;
      try {
        if (!isInside(context.realRoot, realpathAllowMissingSync(path.join(parent, entry.name)))) return linkReason;
      } catch {
        // A link loop or unreadable target: it cannot be shown to stay inside.
        return linkReason;
      }
    }
  } catch {
    // The folder changed or became unreadable while it was being listed.
    return `"${text}": its folder cannot be read, so what the wildcard matches is unknown.`;
  } finally {
    directory.closeSync();
  }
}

function flagName(word: string): string {
  const equals = word.indexOf('=');
  return equals === -1 ? word : word.slice(0, equals);
}

/** Whether `word` sets `flag`: exactly, as `--flag=…`, as an abbreviation of a long flag, or inside a short cluster. */
function matchesFlag(word: string, flag: string): boolean {
  const name = flagName(word);
  if (name === flag) return true;
  if (flag.startsWith('--')) return name.startsWith('--') && name.length >= 4 && flag.startsWith(name);
  if (flag.length === 2 && /^-[A-Za-z]{2,}/.test(word) && !word.startsWith('--')) return word.includes(flag[1] as string);
  return false;
}

function findFlag<T>(word: string, flags: Readonly<Record<string, T>> | undefined): T | undefined {
  if (!flags) return undefined;
  for (const [flag, value] of Object.entries(flags)) if (matchesFlag(word, flag)) return value;
  return undefined;
}

/** The value an option word carries itself (`--out=x` → `x`, `-C..` → `..`), to check like a path. */
function attachedValue(word: string): string | undefined {
  const equals = word.indexOf('=');
  if (equals !== -1) return word.slice(equals + 1);
  if (!word.startsWith('--') && word.length > 2) return word.slice(2);
  return undefined;
}

function evaluate(command: string, rule: ProgramRule, args: readonly ShellWord[], context: PathContext): CallRisk {
  for (const variant of rule.variants ?? []) {
    if (variant.prefix.every((part, index) => args[index]?.text === part)) {
      return evaluate(`${command} ${variant.prefix.join(' ')}`, variant.rule, args.slice(variant.prefix.length), context);
    }
  }
  if (rule.subcommands) {
    const first = args[0];
    if (!first) return dangerous(`\`${command}\` without a subcommand is not one TSUKA knows.`);
    if (first.text.startsWith('-')) {
      const reasons = rule.globalOptionReasons ?? {};
      return dangerous(findFlag(first.text, reasons) ?? own(reasons, '*') ?? rule.reason);
    }
    const subRule = own(rule.subcommands, first.text);
    if (!subRule) return dangerous(`\`${command} ${first.text}\` is not a command TSUKA knows to be harmless.`);
    return evaluate(`${command} ${first.text}`, subRule, args.slice(1), context);
  }
  if (rule.level === 'DANGEROUS') return dangerous(rule.reason);

  const checkPaths = rule.checkPaths ?? true;
  let level = rule.level;
  let patternGiven = false;
  let endOfOptions = false;
  const positionals: ShellWord[] = [];
  for (let index = 0; index < args.length; index += 1) {
    const word = args[index] as ShellWord;
    const text = word.text;
    if (!endOfOptions && text === '--') {
      if (rule.dangerousPathList) return dangerous(rule.dangerousPathList);
      endOfOptions = true;
      continue;
    }
    if (endOfOptions || !text.startsWith('-') || text === '-') {
      const argumentDanger = rule.dangerousArguments && own(rule.dangerousArguments, text);
      if (argumentDanger) return dangerous(argumentDanger);
      if (rule.dangerousExistingPath && fs.existsSync(path.resolve(context.cwd, text))) return dangerous(rule.dangerousExistingPath);
      positionals.push(word);
      continue;
    }
    const danger = findFlag(text, rule.dangerousFlags);
    if (danger) return dangerous(danger);
    if (rule.restrictedFlags?.some((flag) => matchesFlag(text, flag))) level = RANK[level] < RANK.RESTRICTED ? 'RESTRICTED' : level;
    if (rule.patternFlags?.some((flag) => matchesFlag(text, flag))) patternGiven = true;
    if (rule.textValueFlags?.includes(text)) {
      index += 1;
      continue;
    }
    const value = attachedValue(text);
    if (checkPaths && value !== undefined) {
      const reason = outsideReason(value, context);
      if (reason) return dangerous(reason);
    }
  }
  if (rule.requiresPositional && positionals.length === 0) return dangerous(rule.requiresPositional);
  if (rule.positionalsAreRestricted && positionals.length > 0 && level === 'SAFE') level = 'RESTRICTED';
  const pathArguments = rule.patternFirst && !patternGiven ? positionals.slice(1) : positionals;
  if (checkPaths) {
    for (const word of pathArguments) {
      const reason = outsideReason(word.text, context);
      if (reason) return dangerous(reason);
    }
  }
  const reason = level === rule.level ? rule.reason : `\`${command}\` with these arguments changes the repository or workspace.`;
  return { level, reason };
}

/**
 * Why one of the words, taken as a path (or an option's attached value), names a place in a git
 * folder: `.git/`, the folder a gitfile names, or any folder that looks like a git folder.
 */
function gitFolderWordReason(args: readonly ShellWord[], context: PathContext): string | undefined {
  for (const word of args) {
    const text = word.text.startsWith('-') ? attachedValue(word.text) : word.text;
    if (text === undefined || text === '') continue;
    if (/(^|[\\/])\.git([\\/]|$)/i.test(text)) return GIT_FOLDER_WRITE_REASON;
    const reason = gitFolderWriteReason(context.realRoot, path.resolve(context.cwd, text));
    if (reason) return reason;
  }
  return undefined;
}

/**
 * A SAFE git command stays SAFE only when the repository's config names no program that the
 * command-scope overrides of `gitCommandEnv` cannot switch off (`diff.external`, `diff.*.command`).
 */
function gitRepositoryRisk(risk: CallRisk, cwd: string, searchPath: string | undefined): CallRisk {
  let keys: string[];
  try {
    keys = repositoryConfigKeysSync(cwd, searchPath);
  } catch {
    return dangerous("The repository's git config cannot be read, so it cannot be shown to run no program.");
  }
  const programs = unneutralisableKeys(keys);
  if (programs.length > 0)
    return dangerous(`The repository's git config sets \`${programs.join('`, `')}\`, which makes this git command run a program of the repository's choosing.`);
  return risk;
}

/**
 * Classifies one command line for `execute_command`. SAFE: read-only inspection of workspace
 * paths; RESTRICTED: builds, tests and ordinary workspace changes; DANGEROUS: everything else,
 * including any shell operator, expansion, unknown program or path outside the workspace.
 */
export function classifyCommand(command: string, options: CommandLocation): CallRisk {
  if (command.trim() === '') return dangerous('The command is empty.');
  const lexed = lexShellCommand(command);
  if (!lexed.ok) return dangerous(lexed.reason);
  const [program, ...args] = lexed.words;
  if (!program) return dangerous('The command is empty.');

  const root = path.resolve(options.workspaceRoot);
  let realRoot: string;
  try {
    realRoot = realRootOf(root);
  } catch {
    return dangerous('The workspace folder cannot be resolved, so nothing can be proven safe.');
  }
  const context: PathContext = { root, realRoot, cwd: path.resolve(root, options.cwd ?? '.') };
  if (outsideReason(context.cwd, context)) return dangerous('The working directory is outside the workspace.');

  for (const word of lexed.words) {
    const reason = expansionReason(word, context);
    if (reason) return dangerous(reason);
  }
  if (!program.quoted && ASSIGNMENT.test(program.text)) return dangerous('It sets environment variables for the command.');
  if (program.text.includes('/')) return dangerous('It runs a program by its path, which TSUKA cannot vouch for.');

  const rule = own(PROGRAM_RULES, program.text);
  if (rule) {
    const risk = evaluate(program.text, rule, args, context);
    // Changing a git folder (config, hooks) can make later SAFE git commands run programs.
    if (risk.level === 'RESTRICTED') {
      const reason = gitFolderWordReason(args, context);
      if (reason) return dangerous(reason);
    }
    if (program.text === 'git' && risk.level === 'SAFE') return gitRepositoryRisk(risk, context.cwd, options.path);
    if (risk.level !== 'RESTRICTED') return risk;
    const words = lexed.words.map((word) => word.text);
    // Without a scope the grant would be per tool, i.e. any command: fall back to this exact line.
    // An option that picks other code (`make test -f evil.mk`) narrows the grant to this line too.
    return narrowCodeChoosingGrant({ ...risk, grantScope: commandGrantScope(words) ?? command.trim() }, words, command);
  }
  const knownDanger = own(DANGEROUS_PROGRAM_REASONS, program.text);
  if (knownDanger) return dangerous(`\`${program.text}\`: ${knownDanger}`);
  return dangerous(`\`${program.text}\` is not a command TSUKA knows, so it is treated as dangerous.`);
}
