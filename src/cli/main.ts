/** The `tsuka` command line: start | ask | doctor | help. Returns the exit status. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig } from '../config/load-config.js';
import type { AppConfig } from '../config/app-config.js';
import { runAsk } from './ask-command.js';
import { runDoctor } from './doctor-command.js';
import { runStart } from './start-command.js';
import { runRuns } from './runs-command.js';
import { runExport } from './export-command.js';

export const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const USAGE = `Usage:
  tsuka start                                   run every adapter whose credentials are set (none: the local playground)
  tsuka ask <character> "<prompt>" [--yes[=all]] [--workspace DIR]
                                                one headless run; reply on stdout, tool lines on stderr
  tsuka doctor                                  check configuration, data files and model servers
  tsuka runs [N]                                recent runs: id, when, where, kind, outcome
  tsuka export [RUN_ID] [--json]                one run's transcript on stdout (default: the latest)
`;

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  environment: NodeJS.ProcessEnv;
  workingDirectory: string;
}

const defaultIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  environment: process.env,
  workingDirectory: process.cwd(),
};

export async function main(argv: string[], io: CliIo = defaultIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    io.stdout(USAGE);
    return command === undefined ? 1 : 0;
  }
  if (!['start', 'ask', 'doctor', 'runs', 'export'].includes(command)) {
    io.stderr(`Unknown command "${command}".\n${USAGE}`);
    return 2;
  }
  const workspaceFlag = takeOption(rest, '--workspace');
  let config: AppConfig;
  try {
    const environment = workspaceFlag ? { ...io.environment, TSUKA_WORKSPACE: workspaceFlag } : io.environment;
    config = loadConfig({ environment, workingDirectory: io.workingDirectory, rootDirectory: PACKAGE_ROOT });
  } catch (error) {
    if (error instanceof ConfigError) {
      if (command === 'doctor') return runDoctor({ io, configProblems: error.problems });
      io.stderr(`${error.message}\n`);
      return 2;
    }
    throw error;
  }
  if (command === 'ask') return runAsk(rest, config, io);
  if (command === 'doctor') return runDoctor({ io, config });
  if (command === 'runs') return runRuns(rest, config, io);
  if (command === 'export') return runExport(rest, config, io);
  return runStart(config, io);
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
