/**
 * The tables of `code-choosing-options.ts`: per program (or subcommand), the options that make it
 * run other code, each with what it chooses (shown in the approval reason).
 */

export /** One program's (or subcommand's) options that choose code, each with what it chooses. */
interface OptionTable {
  options: Readonly<Record<string, string>>;
  /** Whether short options may be grouped (`-kf evil.mk`). */
  clusters: boolean;
  /** Whether the program accepts a long option by an unambiguous prefix (`--makef`): GNU getopt, npm, argparse. */
  abbreviations?: boolean;
  /** Why a positional argument (other than the scope's own words) chooses code, or undefined when it cannot. */
  positional?: (word: string) => string | undefined;
  /** How the words after `--` are checked (they reach another program's command line: the script's). */
  afterDoubleDash?: OptionTable;
  /** Options end at the first positional (the script): what follows is the script's own arguments. */
  optionsEndAtPositional?: boolean;
}

const MAKEFILE = 'makes make read another makefile';
const MAKE: OptionTable = {
  clusters: true,
  abbreviations: true,
  options: {
    '-f': MAKEFILE,
    '--file': MAKEFILE,
    '--makefile': MAKEFILE,
    '-C': 'makes make use the makefile of another folder',
    '--directory': 'makes make use the makefile of another folder',
    '-I': 'changes where make finds included makefiles',
    '--include-dir': 'changes where make finds included makefiles',
    '-E': 'adds makefile text given on the command line',
    '--eval': 'adds makefile text given on the command line',
  },
  positional: (word) =>
    /^[A-Za-z_.][A-Za-z0-9_.]*[:+?!]?=/.test(word) ? `sets the make variable ${word.split(/[:+?!]?=/)[0]}, which can change the programs make runs` : undefined,
};

const NPM_OPTIONS: Readonly<Record<string, string>> = {
  '--script-shell': 'makes npm run scripts through another program',
  '--node-options': 'passes Node.js options (such as --require) to every script',
  '--userconfig': 'makes npm read another configuration file (which can set the script shell)',
  '--globalconfig': 'makes npm read another configuration file (which can set the script shell)',
  '--workspace': "runs another workspace package's scripts",
  '-w': "runs another workspace package's scripts",
  '--workspaces': "runs every workspace package's scripts",
  '--ws': "runs every workspace package's scripts",
  '--registry': 'installs packages from another registry',
  '--call': 'runs a command given on the command line',
  '-c': 'runs a command given on the command line',
  '--init-module': 'loads another init module',
};
const NPM: OptionTable = { clusters: true, abbreviations: true, options: NPM_OPTIONS };
const NPM_INSTALL: OptionTable = { ...NPM, positional: () => 'names the packages to install, whose install scripts run' };

const VITEST: OptionTable = {
  clusters: false,
  options: {
    '--config': 'makes vitest load another configuration file (code)',
    '-c': 'makes vitest load another configuration file (code)',
    '--root': 'makes vitest use another project root and its configuration',
    '-r': 'makes vitest use another project root and its configuration',
    '--dir': 'makes vitest look for tests elsewhere',
    '--workspace': 'makes vitest load another workspace file',
    '--environment': 'makes vitest load another test environment module',
    '--reporter': 'makes vitest load a reporter module',
    '--pool': 'makes vitest load another pool module',
    '--globalSetup': 'makes vitest run a global setup module',
    '--setupFiles': 'makes vitest run setup modules',
    '--coverage.customProviderModule': 'makes vitest load a coverage provider module',
    '--api': 'opens a vitest API server that accepts commands',
    '--ui': 'opens a vitest UI server that accepts commands',
    '--inspect': 'opens a debugger port that accepts code',
    '--inspect-brk': 'opens a debugger port that accepts code',
  },
};

const ESLINT: OptionTable = {
  clusters: false,
  options: {
    '--config': 'makes eslint load another configuration file (code)',
    '-c': 'makes eslint load another configuration file (code)',
    '--rulesdir': 'makes eslint load rules from another folder',
    '--resolve-plugins-relative-to': 'changes where eslint loads plugins from',
    '--plugin': 'makes eslint load a plugin',
    '--parser': 'makes eslint load another parser',
    '--format': 'makes eslint load a formatter module',
    '-f': 'makes eslint load a formatter module',
  },
};

const TSC: OptionTable = {
  clusters: false,
  options: {
    '--project': 'makes tsc use another tsconfig',
    '-p': 'makes tsc use another tsconfig',
    '--build': 'makes tsc build other projects',
    '-b': 'makes tsc build other projects',
  },
};

const PYTEST: OptionTable = {
  clusters: true,
  abbreviations: true,
  options: {
    '-p': 'makes pytest load a plugin',
    '-c': 'makes pytest read another configuration file',
    '--config-file': 'makes pytest read another configuration file',
    '--rootdir': 'makes pytest use another root folder and its configuration',
    '--confcutdir': 'changes which conftest.py files pytest loads',
    '-o': 'overrides pytest configuration (which can add plugins)',
    '--override-ini': 'overrides pytest configuration (which can add plugins)',
    '--pyargs': 'makes pytest import installed packages as tests',
    '--pdbcls': 'makes pytest import a debugger class',
  },
};

const PRELOAD = 'makes Node.js load a module first';
const NODE: OptionTable = {
  clusters: false,
  optionsEndAtPositional: true,
  options: {
    '--require': PRELOAD,
    '-r': PRELOAD,
    '--import': PRELOAD,
    '--loader': 'installs a module loader',
    '--experimental-loader': 'installs a module loader',
    '--env-file': 'reads environment variables (such as NODE_OPTIONS) from a file',
    '--env-file-if-exists': 'reads environment variables (such as NODE_OPTIONS) from a file',
    '--conditions': 'makes packages resolve to other code',
    '-C': 'makes packages resolve to other code',
    '--openssl-config': 'makes OpenSSL read a configuration that can load a library',
    '--experimental-policy': 'makes Node.js read another policy',
    '--test-reporter': 'makes the test runner load a reporter module',
  },
};

/** Python's own options come before its script; a `-W` filter imports the module of its warning category. */
const PYTHON: OptionTable = { clusters: false, optionsEndAtPositional: true, options: { '-W': 'imports the module named in a warning filter' } };

const CARGO: OptionTable = {
  clusters: false,
  options: {
    '--manifest-path': 'makes cargo build another package',
    '--config': 'sets cargo configuration (which can name a runner program)',
    '-Z': 'turns on unstable cargo behaviour',
    '-C': 'makes cargo work in another folder',
    '--package': 'makes cargo build another package',
    '-p': 'makes cargo build another package',
    '--workspace': 'makes cargo build every package of the workspace',
    '--all': 'makes cargo build every package of the workspace',
  },
};

const GO_TOOL = 'makes go run another program';
const GO: OptionTable = {
  clusters: false,
  options: {
    '-exec': GO_TOOL,
    '-toolexec': GO_TOOL,
    '-vettool': GO_TOOL,
    '-compiler': GO_TOOL,
    '-ldflags': 'passes linker flags (which can name another linker program)',
    '-gccgoflags': 'passes compiler flags (which can name other programs)',
    '-overlay': 'replaces source files with others',
    '-modfile': 'makes go read another go.mod',
    '-C': 'makes go work in another folder',
  },
};

const JEST: OptionTable = {
  clusters: false,
  options: Object.fromEntries(
    [
      '--config',
      '-c',
      '--rootDir',
      '--roots',
      '--projects',
      '--preset',
      '--setupFiles',
      '--setupFilesAfterEnv',
      '--globalSetup',
      '--globalTeardown',
      '--testRunner',
      '--runner',
      '--testEnvironment',
      '--reporters',
      '--transform',
      '--resolver',
      '--testSequencer',
      '--watchPlugins',
      '--snapshotResolver',
      '--testResultsProcessor',
    ].map((option) => [option, 'makes the test runner load other configuration or modules']),
  ),
};

/** What a script's test runner or linter may take after `npm test --`: every runner's options above. */
const SCRIPT_ARGUMENTS: OptionTable = {
  clusters: false,
  options: Object.fromEntries(
    [JEST, VITEST, ESLINT, TSC, PYTEST, NODE].flatMap((table) =>
      Object.entries(table.options).map(([option, why]) => [option, `${why} (passed to the script)`]),
    ),
  ),
};
const NPM_SCRIPT: OptionTable = { ...NPM, afterDoubleDash: SCRIPT_ARGUMENTS };

/** The table for a command (program first), and how many leading words are its scope (not to check). */
export function tableFor(words: readonly string[]): { table: OptionTable; skip: number } | undefined {
  const [program, first, second] = words;
  switch (program) {
    case 'make':
      return { table: MAKE, skip: 1 };
    case 'npm':
      if (first === 'install' || first === 'i') return { table: NPM_INSTALL, skip: 2 };
      if (first === 'run' || first === 'run-script') return { table: NPM_SCRIPT, skip: 3 };
      if (first === 'test' || first === 't') return { table: NPM_SCRIPT, skip: 2 };
      return { table: NPM, skip: 2 };
    case 'npx':
      if (first === 'vitest') return { table: VITEST, skip: 2 };
      if (first === 'eslint') return { table: ESLINT, skip: 2 };
      if (first === 'tsc') return { table: TSC, skip: 2 };
      return undefined;
    case 'tsc':
      return { table: TSC, skip: 1 };
    case 'pytest':
      return { table: PYTEST, skip: 1 };
    case 'python':
    case 'python3':
      if (first === '-m' && (second === 'pytest' || second === 'unittest')) return { table: PYTEST, skip: 3 };
      return { table: PYTHON, skip: 1 };
    case 'node':
      return { table: NODE, skip: 1 };
    case 'cargo':
      return { table: CARGO, skip: 2 };
    case 'go':
      return { table: GO, skip: 2 };
    default:
      return undefined;
  }
}
