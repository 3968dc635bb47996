#!/usr/bin/env node
// The `tsuka` command. Runs the compiled JavaScript in dist/ when it is current (see build-stamp.js),
// else the TypeScript sources through tsx, so `npx tsuka` works right after `npm install` with no
// build step. TSUKA_RUN_FROM_SOURCE=1 forces the sources (tests always exercise them).
import module from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildState } from './build-stamp.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const fromSource = process.env.TSUKA_RUN_FROM_SOURCE === '1' || !buildState(root).current;
let main;
if (fromSource) {
  try {
    const { register } = await import('tsx/esm/api');
    register();
  } catch (error) {
    process.stderr.write(
      `TSUKA cannot run its TypeScript sources: tsx is not installed (${error.code ?? error.message}). Run \`npm install\`, or \`npm run build\` to run compiled JavaScript.\n`,
    );
    process.exit(1);
  }
  ({ main } = await import('../src/cli/main.ts'));
} else {
  // Node 22.1+ keeps V8's compiled code of the bundle on disk (the OS temp folder, or NODE_COMPILE_CACHE),
  // so later starts skip most of the parsing and compiling. Node 20 has no such cache: nothing to do.
  module.enableCompileCache?.();
  ({ main } = await import('../dist/cli/main.js'));
}
const status = await main(process.argv.slice(2));
process.exitCode = status;
// A failed command has said why in one line; nothing it left open (a socket, a timer) may keep it alive.
if (status !== 0) process.exit(status);
