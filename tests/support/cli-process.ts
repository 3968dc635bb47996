/** Spawning the real `tsuka` command in tests: always from the TypeScript sources, never a stale dist/. */
import path from 'node:path';
import { TEST_SANDBOX_ENVIRONMENT } from './test-sandbox.js';

export const TSUKA_BIN = path.resolve(import.meta.dirname, '../../bin/tsuka.js');

/** A clean environment for a CLI child: a temp home, its data and workspace folders, sources forced. */
export function cliEnvironment(home: string, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    TSUKA_DATA_DIR: path.join(home, 'data'),
    TSUKA_WORKSPACE: path.join(home, 'workspace'),
    // bin/tsuka.js runs dist/ when a current build exists; tests must exercise the sources.
    TSUKA_RUN_FROM_SOURCE: '1',
    ...TEST_SANDBOX_ENVIRONMENT,
    ...extra,
  };
}
