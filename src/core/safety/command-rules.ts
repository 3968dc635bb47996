/**
 * The command classifier's knowledge, as data: program → rule. A program missing from
 * `PROGRAM_RULES` is DANGEROUS. Reasons are short sentences shown on the approval prompt.
 */
import type { RiskLevel } from '../tools/tool.js';

/** How one program (or subcommand) is judged once the line is known to be a single simple command. */
export interface ProgramRule {
  level: RiskLevel;
  reason: string;
  /** Whether arguments and option values must stay inside the workspace (default true). */
  checkPaths?: boolean;
  /** Flags that make the call DANGEROUS, with why. Long flags also match `--flag=…` and git-style abbreviations. */
  dangerousFlags?: Readonly<Record<string, string>>;
  /** Flags that raise a SAFE call to RESTRICTED (e.g. `git branch -D`). */
  restrictedFlags?: readonly string[];
  /** Any positional argument raises a SAFE call to RESTRICTED (e.g. `git branch new-name`). */
  positionalsAreRestricted?: boolean;
  /** Positional words that make the call DANGEROUS, with why (`git stash drop`, `git checkout .`). */
  dangerousArguments?: Readonly<Record<string, string>>;
  /** Why `--` (paths follow) makes the call DANGEROUS (`git checkout -- file` discards changes). */
  dangerousPathList?: string;
  /** Why a positional naming an existing file or folder makes the call DANGEROUS (`git checkout file`). */
  dangerousExistingPath?: string;
  /** Flags whose next word is free text rather than a path (`git commit -m "…"`). */
  textValueFlags?: readonly string[];
  /** The first positional is a search pattern, not a path, unless one of `patternFlags` was given. */
  patternFirst?: boolean;
  patternFlags?: readonly string[];
  /** Without any positional argument the call is DANGEROUS, for this reason (an interpreter without a script). */
  requiresPositional?: string;
  /** Leading arguments that select another rule (`node --version`, `python -m pytest`). */
  variants?: readonly { prefix: readonly string[]; rule: ProgramRule }[];
  /** The first argument names a subcommand; one missing from here is DANGEROUS. */
  subcommands?: Readonly<Record<string, ProgramRule>>;
  /** Why an option placed before the subcommand is DANGEROUS, per option; `*` for the rest. */
  globalOptionReasons?: Readonly<Record<string, string>>;
}

const danger = (reason: string): ProgramRule => ({ level: 'DANGEROUS', reason, checkPaths: false });
const safeVersion: ProgramRule = { level: 'SAFE', reason: 'It only prints a version.', checkPaths: false };

const INSPECT = 'Read-only inspection of workspace files.';
const FOLLOWS_LINKS = 'It follows symbolic links, which may lead outside the workspace.';
const FILE_LIST = 'It reads the list of files to work on from a file, so the files it touches are not shown.';
const BUILD = "Runs the project's build or tests, which executes workspace code.";
const CHANGE = 'Changes files inside the workspace.';
const DISCARDS = 'It throws away uncommitted changes, like git reset --hard.';

const inspect = (extra: Partial<ProgramRule> = {}): ProgramRule => ({ level: 'SAFE', reason: INSPECT, ...extra });
const restricted = (reason: string, extra: Partial<ProgramRule> = {}): ProgramRule => ({ level: 'RESTRICTED', reason, ...extra });

const INTO_SUBMODULES = "It sends git into submodules, whose own config can run programs of the repository's choosing.";
const GIT_SUBMODULE_DANGERS: Readonly<Record<string, string>> = {
  '--ignore-submodules': INTO_SUBMODULES,
  '--submodule': INTO_SUBMODULES,
  '--recurse-submodules': INTO_SUBMODULES,
};

const GIT_READ_DANGERS: Readonly<Record<string, string>> = {
  ...GIT_SUBMODULE_DANGERS,
  '--output': 'It writes git output to a file of its choosing.',
  '--ext-diff': 'It runs an external diff program.',
  '--textconv': 'It runs configured text-conversion programs.',
  '--open-files-in-pager': 'It opens a pager program.',
};

const PATHSPEC_FROM_FILE: Readonly<Record<string, string>> = { '--pathspec-from-file': FILE_LIST };

const GIT_RULE: ProgramRule = {
  level: 'DANGEROUS',
  reason: 'This git command is not one TSUKA knows to be harmless.',
  variants: [{ prefix: ['--version'], rule: safeVersion }],
  globalOptionReasons: {
    '-c': 'git -c can set any configuration, including programs git runs.',
    '--config-env': 'It sets git configuration from the environment.',
    '--exec-path': 'It changes where git finds the programs it runs.',
    '*': 'Options before the git subcommand can change what git runs or where.',
  },
  subcommands: {
    status: inspect({ reason: 'Shows the state of the repository (read-only).', dangerousFlags: GIT_SUBMODULE_DANGERS }),
    log: inspect({ reason: 'Shows the history of the repository (read-only).', dangerousFlags: GIT_READ_DANGERS }),
    show: inspect({ reason: 'Shows a commit or file from the repository (read-only).', dangerousFlags: GIT_READ_DANGERS }),
    diff: inspect({ reason: 'Shows changes in the repository (read-only).', dangerousFlags: GIT_READ_DANGERS }),
    branch: inspect({
      reason: 'Lists branches (read-only).',
      positionalsAreRestricted: true,
      restrictedFlags: ['-d', '--delete', '-m', '--move', '-c', '--copy', '-u', '--set-upstream-to', '--unset-upstream', '--edit-description', '-t', '--track'],
      dangerousFlags: {
        ...GIT_SUBMODULE_DANGERS,
        '-D': 'git branch -D deletes a branch even if its commits are merged nowhere.',
        '-M': 'git branch -M overwrites an existing branch.',
        '-C': 'git branch -C overwrites an existing branch.',
        '-f': 'git branch --force resets or deletes a branch whatever it holds.',
        '--force': 'git branch --force resets or deletes a branch whatever it holds.',
      },
    }),
    add: restricted('Stages workspace changes in git.', { dangerousFlags: PATHSPEC_FROM_FILE }),
    commit: restricted('Records a git commit (repository hooks may run).', { textValueFlags: ['-m', '--message'], dangerousFlags: PATHSPEC_FROM_FILE }),
    checkout: restricted('Switches git branches in the workspace.', {
      dangerousFlags: {
        '-f': DISCARDS,
        '--force': DISCARDS,
        '-p': DISCARDS,
        '--patch': DISCARDS,
        '--ours': DISCARDS,
        '--theirs': DISCARDS,
        '-B': 'git checkout -B resets an existing branch.',
        '--pathspec-from-file': 'It reads the paths to restore from a file.',
      },
      dangerousArguments: { '.': DISCARDS },
      dangerousPathList: DISCARDS,
      dangerousExistingPath: 'git checkout <file> throws away the uncommitted changes to that file.',
    }),
    switch: restricted('Switches git branches in the workspace.', {
      dangerousFlags: {
        '-f': DISCARDS,
        '--force': DISCARDS,
        '--discard-changes': DISCARDS,
        '-C': 'git switch -C resets an existing branch.',
        '--force-create': 'It resets an existing branch.',
      },
    }),
    restore: danger('git restore throws away uncommitted changes.'),
    stash: restricted('Stashes or restores uncommitted changes.', {
      textValueFlags: ['-m', '--message'],
      dangerousFlags: PATHSPEC_FROM_FILE,
      dangerousArguments: { drop: 'git stash drop deletes stashed work.', clear: 'git stash clear deletes all stashed work.' },
    }),
    init: restricted('Creates a git repository in the workspace.', {
      dangerousFlags: {
        '--template': 'A template copies its config and hooks into the new repository, which can make git run programs.',
        '--separate-git-dir': 'It puts the repository somewhere else, possibly outside the workspace.',
      },
    }),
    reset: restricted('Moves the git branch pointer; files are kept.', {
      dangerousFlags: {
        '--hard': 'git reset --hard throws away uncommitted work.',
        '--merge': 'It can discard uncommitted work.',
        '--keep': 'It can discard uncommitted work.',
        ...PATHSPEC_FROM_FILE,
      },
    }),
    push: danger('git push sends commits to another machine.'),
    clean: danger('git clean deletes untracked files.'),
    config: danger('git config can make git run other programs.'),
  },
};

const NPM_SCOPE_DANGERS: Readonly<Record<string, string>> = {
  '-g': 'It installs or runs packages globally, outside the workspace.',
  '--global': 'It installs or runs packages globally, outside the workspace.',
  '--location': 'It changes where npm installs, possibly outside the workspace.',
  '--prefix': 'It changes where npm works, possibly outside the workspace.',
};

const npmRestricted = (reason: string): ProgramRule => restricted(reason, { dangerousFlags: NPM_SCOPE_DANGERS });

const NPM_RULE: ProgramRule = {
  level: 'DANGEROUS',
  reason: 'This npm command is not one TSUKA knows.',
  variants: [
    { prefix: ['--version'], rule: safeVersion },
    { prefix: ['-v'], rule: safeVersion },
  ],
  globalOptionReasons: { '*': 'Options before the npm command can change where and how it runs.' },
  subcommands: {
    ls: inspect({ reason: 'Lists installed packages (read-only).' }),
    list: inspect({ reason: 'Lists installed packages (read-only).' }),
    test: npmRestricted(BUILD),
    t: npmRestricted(BUILD),
    run: npmRestricted('Runs a package.json script, which executes workspace code.'),
    'run-script': npmRestricted('Runs a package.json script, which executes workspace code.'),
    install: npmRestricted('Installs packages into the workspace (downloads and may run install scripts).'),
    i: npmRestricted('Installs packages into the workspace (downloads and may run install scripts).'),
    ci: npmRestricted('Installs packages into the workspace (downloads and may run install scripts).'),
    publish: danger('npm publish uploads a package to the public registry.'),
  },
};

const NPX_RULE: ProgramRule = {
  level: 'DANGEROUS',
  reason: 'npx would download and run a package TSUKA does not know.',
  globalOptionReasons: { '*': 'npx options can fetch and run arbitrary packages.' },
  subcommands: { vitest: restricted(BUILD), tsc: restricted(BUILD), eslint: restricted(BUILD) },
};

const NODE_RULE: ProgramRule = restricted('Runs a workspace script with Node.js.', {
  variants: [
    { prefix: ['--version'], rule: safeVersion },
    { prefix: ['-v'], rule: safeVersion },
  ],
  requiresPositional: 'Node.js without a script file could run any code.',
  dangerousFlags: {
    '-e': 'node -e runs code given on the command line.',
    '--eval': 'node --eval runs code given on the command line.',
    '-p': 'node -p runs code given on the command line.',
    '--print': 'node --print runs code given on the command line.',
    '-r': 'It preloads a module, which could come from anywhere.',
    '--require': 'It preloads a module, which could come from anywhere.',
    '--import': 'It preloads a module, which could come from anywhere.',
    '--loader': 'It installs a module loader, which could come from anywhere.',
    '--experimental-loader': 'It installs a module loader, which could come from anywhere.',
    '-i': 'It starts an interactive Node.js shell.',
    '--interactive': 'It starts an interactive Node.js shell.',
    '--inspect': 'It opens a debugger port that accepts code.',
    '--inspect-brk': 'It opens a debugger port that accepts code.',
  },
});

const PYTEST_RULE: ProgramRule = restricted(BUILD);

const PYTHON_RULE: ProgramRule = restricted('Runs a workspace script with Python.', {
  variants: [
    { prefix: ['--version'], rule: safeVersion },
    { prefix: ['-V'], rule: safeVersion },
    { prefix: ['-m', 'pytest'], rule: PYTEST_RULE },
    { prefix: ['-m', 'unittest'], rule: PYTEST_RULE },
  ],
  requiresPositional: 'Python without a script file could run any code.',
  dangerousFlags: {
    '-c': 'python -c runs code given on the command line.',
    '-m': 'python -m runs any installed module.',
    '-i': 'It starts an interactive Python shell.',
  },
});

const sub = (names: readonly string[], rule: ProgramRule): Record<string, ProgramRule> => Object.fromEntries(names.map((name) => [name, rule]));

/** Every program the classifier knows; anything else is DANGEROUS. */
export const PROGRAM_RULES: Readonly<Record<string, ProgramRule>> = {
  ls: inspect({ dangerousFlags: { '-L': FOLLOWS_LINKS, '--dereference': FOLLOWS_LINKS } }),
  pwd: inspect(),
  cat: inspect(),
  head: inspect(),
  tail: inspect(),
  wc: inspect({ dangerousFlags: { '--files0-from': FILE_LIST } }),
  stat: inspect(),
  file: inspect({ dangerousFlags: { '-f': FILE_LIST, '--files-from': FILE_LIST } }),
  du: inspect({
    dangerousFlags: { '-L': FOLLOWS_LINKS, '--dereference': FOLLOWS_LINKS, '--files0-from': FILE_LIST, '-X': FILE_LIST, '--exclude-from': FILE_LIST },
  }),
  grep: inspect({
    patternFirst: true,
    patternFlags: ['-e', '--regexp', '-f', '--file'],
    dangerousFlags: { '-R': FOLLOWS_LINKS, '--dereference-recursive': FOLLOWS_LINKS },
  }),
  rg: inspect({
    patternFirst: true,
    patternFlags: ['-e', '--regexp', '-f', '--file'],
    dangerousFlags: { '--pre': 'rg --pre runs a program on every file.', '-L': FOLLOWS_LINKS, '--follow': FOLLOWS_LINKS },
  }),
  find: inspect({
    dangerousFlags: {
      '-exec': 'find -exec runs a program on every match.',
      '-execdir': 'find -execdir runs a program on every match.',
      '-ok': 'find -ok runs a program on every match.',
      '-okdir': 'find -okdir runs a program on every match.',
      '-delete': 'find -delete deletes files.',
      '-fprint': 'It writes a file of its choosing.',
      '-fprint0': 'It writes a file of its choosing.',
      '-fprintf': 'It writes a file of its choosing.',
      '-fls': 'It writes a file of its choosing.',
      '-L': FOLLOWS_LINKS,
      '-follow': FOLLOWS_LINKS,
      '-files0-from': FILE_LIST,
    },
  }),
  echo: { level: 'SAFE', reason: 'It only prints literal text.', checkPaths: false },
  date: inspect({ reason: 'It only prints the date.', dangerousFlags: { '-s': 'It sets the system clock.', '--set': 'It sets the system clock.' } }),
  whoami: { level: 'SAFE', reason: 'It only prints the user name.', checkPaths: false },
  uname: { level: 'SAFE', reason: 'It only prints system information.', checkPaths: false },
  node: NODE_RULE,
  python: PYTHON_RULE,
  python3: PYTHON_RULE,
  pytest: PYTEST_RULE,
  npm: NPM_RULE,
  npx: NPX_RULE,
  tsc: restricted(BUILD),
  make: restricted(BUILD),
  cargo: {
    ...danger('This cargo command is not one TSUKA knows.'),
    variants: [{ prefix: ['--version'], rule: safeVersion }],
    globalOptionReasons: { '*': 'Options before the cargo command can change what it runs.' },
    subcommands: sub(['build', 'test', 'check', 'clippy'], restricted(BUILD)),
  },
  go: {
    ...danger('This go command is not one TSUKA knows.'),
    globalOptionReasons: { '*': 'Options before the go command can change what it runs.' },
    subcommands: { ...sub(['build', 'test', 'vet'], restricted(BUILD)), version: safeVersion },
  },
  git: GIT_RULE,
  mkdir: restricted(CHANGE),
  touch: restricted(CHANGE),
  cp: restricted('Copies files within the workspace.'),
  mv: restricted('Moves or renames files within the workspace.'),
};

const deny = (names: readonly string[], reason: string): Record<string, string> => Object.fromEntries(names.map((name) => [name, reason]));

/** Programs that are always DANGEROUS, with a specific reason (better than "unknown"). */
export const DANGEROUS_PROGRAM_REASONS: Readonly<Record<string, string>> = {
  ...deny(['rm', 'rmdir', 'shred', 'truncate', 'unlink'], 'It deletes or destroys files.'),
  ...deny(['sudo', 'su', 'doas', 'pkexec'], 'It runs a command with other privileges.'),
  ...deny(['curl', 'wget', 'ssh', 'scp', 'sftp', 'rsync', 'nc', 'ncat', 'netcat', 'telnet', 'ftp'], 'It talks to the network.'),
  ...deny(['chmod', 'chown', 'chgrp', 'chattr'], 'It changes file permissions or ownership.'),
  ...deny(['dd', 'mkfs', 'mount', 'umount', 'fdisk'], 'It writes to disks or devices.'),
  ...deny(['env', 'printenv', 'export', 'set', 'unset', 'declare', 'alias'], 'It reads or changes environment variables.'),
  ...deny(['kill', 'pkill', 'killall'], 'It stops other processes.'),
  ...deny(
    ['xargs', 'eval', 'exec', 'source', '.', 'command', 'builtin', 'nohup', 'timeout', 'nice', 'time', 'watch'],
    'It runs another command built at run time.',
  ),
  ...deny(['sh', 'bash', 'zsh', 'dash', 'ksh', 'fish', 'csh', 'tcsh'], 'It starts a shell that could run anything.'),
  ...deny(['perl', 'ruby', 'php', 'lua', 'awk', 'gawk', 'sed'], 'It runs a script language that can do anything.'),
  ...deny(['ln'], 'It creates links, which can point outside the workspace.'),
  ...deny(['tee'], 'It writes files.'),
  ...deny(['crontab', 'systemctl', 'service', 'shutdown', 'reboot'], 'It changes the system.'),
};
