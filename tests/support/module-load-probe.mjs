/**
 * Runs `tsuka <args>` in this process and prints, as the last line of stdout, a JSON list of every
 * module it loaded: ES modules seen by a resolve hook (TypeScript sources through tsx included)
 * and CommonJS modules from require's cache. Used by the lean-CLI test in a child process.
 */
import { register } from 'node:module';
import { createRequire } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
import { register as registerTsx } from 'tsx/esm/api';

registerTsx();
const loaded = new Set();
const { port1, port2 } = new MessageChannel();
port1.on('message', (url) => loaded.add(url));
port1.unref();
// Registered after tsx, so it runs first and records the URL tsx resolved to.
const hook = `
let port;
export function initialize(data) { port = data.port; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  port.postMessage(resolved.url);
  return resolved;
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`, import.meta.url, { data: { port: port2 }, transferList: [port2] });

const { main } = await import('../../src/cli/main.ts');
let output = '';
const status = await main(process.argv.slice(2), {
  stdout: (text) => void (output += text),
  stderr: (text) => void (output += text),
  environment: process.env,
  workingDirectory: process.cwd(),
});
// Messages from the hooks thread arrive asynchronously: let them land.
await new Promise((resolve) => setTimeout(resolve, 50));
const required = Object.keys(createRequire(import.meta.url).cache);
process.stdout.write(`${JSON.stringify({ status, output, modules: [...loaded, ...required] })}\n`);
