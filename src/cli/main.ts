/** The `tsuka` command line: start | ask | doctor | backup | benchmark | help. Returns the exit status. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig } from '../config/load-config.js';
import type { AppConfig } from '../config/app-config.js';
import { removeSecretsFromEnvironment } from '../config/secret-environment.js';
import type { ConsoleIo } from '../app/console-io.js';
import { PACKAGE_ROOT } from '../app/package-root.js';
import { describeFailure } from './failure-lines.js';

export { PACKAGE_ROOT };

/** The version in package.json (read when asked, so the usual commands do not pay for it). */
function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version?: string };
  return manifest.version ?? 'unknown';
}

const USAGE = `Usage:
  tsuka start                                   run every adapter whose credentials are set (none: the local playground)
  tsuka ask <character> "<prompt>" [--yes[=all]] [--workspace DIR]
                                                one headless run; reply on stdout, tool lines on stderr
  tsuka doctor                                  check configuration, data files and model servers
  tsuka backup FILE                             a consistent copy of the store, safe while TSUKA runs
  tsuka benchmark [--reset]                     measure the model (speed, quality) and store its profile and tier;
                                                --reset forgets the stored profile (the tier comes from the name again)
  tsuka manifest slack [--name NAME]            the Slack app manifest to paste when creating the app
  tsuka --version                               print the version
  tsuka runs [N]                                recent runs: id, when, where, kind, outcome
  tsuka export [RUN_ID] [--json]                one run's transcript on stdout (default: the latest)
  tsuka audit [--json] [--since 7d|ISO-DATE]    the audit log: approvals, exports, memory changes, admin actions
  tsuka policy explain "<command>" --channel slack:T1/C1
                                                the approval policy's rule the command meets there, and who may decide
`;

/** The command line's io (the process's streams, or a test's). */
export type CliIo = ConsoleIo;

const defaultIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  environment: process.env,
  workingDirectory: process.cwd(),
  interactive: process.stderr.isTTY === true,
  moveSecretsOutOfEnvironment: true,
};

/** `tsuka runs | head -3`: the reader went away, so stop quietly as other command-line tools do (no EPIPE stack). */
function stopQuietlyOnClosedPipe(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      process.exit(0);
    });
  }
}

export async function main(argv: string[], io: CliIo = defaultIo): Promise<number> {
  if (io === defaultIo) stopQuietlyOnClosedPipe();
  try {
    return await runCommand(argv, io);
  } catch (error) {
    // Every failure is a short message and a non-zero exit; the stack only at debug level.
    io.stderr(describeFailure(error, { debug: io.environment.TSUKA_LOG_LEVEL?.toLowerCase() === 'debug' }));
    return 1;
  }
}

async function runCommand(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    io.stdout(USAGE);
    return command === undefined ? 1 : 0;
  }
  if (command === '--version' || command === '-v' || command === 'version') {
    io.stdout(`tsuka ${packageVersion()}\n`);
    return 0;
  }
  // Needs no configuration: the first step of a new team, before any token exists.
  if (command === 'manifest') return (await import('./manifest-command.js')).runManifest(rest, io, io.rootDirectory ?? PACKAGE_ROOT);
  if (!['start', 'ask', 'doctor', 'backup', 'benchmark', 'runs', 'export', 'audit', 'policy'].includes(command)) {
    io.stderr(`Unknown command "${command}".\n${USAGE}`);
    return 2;
  }
  const workspaceFlag = takeOption(rest, '--workspace');
  let config: AppConfig;
  try {
    const environment = workspaceFlag ? { ...io.environment, TSUKA_WORKSPACE: workspaceFlag } : io.environment;
    config = loadConfig({ environment, workingDirectory: io.workingDirectory, rootDirectory: io.rootDirectory ?? PACKAGE_ROOT });
    // Before anything can spawn: from here on the tokens live only in `config`, in memory.
    if (io.moveSecretsOutOfEnvironment) removeSecretsFromEnvironment(io.environment);
  } catch (error) {
    if (error instanceof ConfigError) {
      if (command === 'doctor') return (await import('./doctor-command.js')).runDoctor({ io, configProblems: error.problems });
      io.stderr(`${error.message}\n`);
      return 2;
    }
    throw error;
  }
  // Each command loads only its own module graph: `ask` and `doctor` never load a platform SDK.
  if (command === 'ask') return (await import('./ask-command.js')).runAsk(rest, config, io);
  if (command === 'doctor') return (await import('./doctor-command.js')).runDoctor({ io, config });
  if (command === 'backup') return (await import('./backup-command.js')).runBackup(rest, config, io);
  if (command === 'benchmark') return (await import('./benchmark-command.js')).runBenchmarkCommand(config, io, { argv: rest });
  if (command === 'runs') return (await import('./runs-command.js')).runRuns(rest, config, io);
  if (command === 'export') return (await import('./export-command.js')).runExport(rest, config, io);
  if (command === 'audit') return (await import('./audit-command.js')).runAudit(rest, config, io);
  if (command === 'policy') return (await import('./policy-command.js')).runPolicy(rest, config, io);
  return (await import('./start-command.js')).runStart(config, io);
}

/** Removes `--name value` or `--name=value` from args and returns the value. */
function takeOption(args: string[], name: string): string | undefined {
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (arg === name) {
      const value = args[index + 1];
      args.splice(index, 2);
      return value;
    }
    if (arg.startsWith(`${name}=`)) {
      args.splice(index, 1);
      return arg.slice(name.length + 1);
    }
  }
  return undefined;
}
