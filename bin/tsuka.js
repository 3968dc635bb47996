#!/usr/bin/env node
// Runs the TypeScript sources through tsx so that `npx tsuka` works right after `npm install`, with no build step.
import { register } from 'tsx/esm/api';
register();
const { main } = await import('../src/cli/main.ts');
const status = await main(process.argv.slice(2));
process.exitCode = status;
// A failed command has said why in one line; nothing it left open (a socket, a timer) may keep it alive.
if (status !== 0) process.exit(status);
