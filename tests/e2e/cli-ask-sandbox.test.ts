/**
 * The command sandbox end to end: `tsuka ask --yes=all` as a real process (bin/tsuka.js) holding
 * Slack tokens in its own environment, the scripted model asking execute_command to dig them out
 * of /proc. Under bubblewrap no tool result, reply or stored event holds them. (Under
 * TSUKA_SANDBOX=none the same `$PPID` command does reveal them — the fallback's documented limit;
 * tests/unit/safety/fallback-sandbox.test.ts shows that side without a second bot process.)
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import { createBubblewrapSandbox } from '../../src/core/safety/bubblewrap-sandbox.js';
import { probeSandbox } from '../../src/core/safety/select-sandbox.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SECRETS = ['xoxb-5555-6666-e2esandboxsecret', 'xapp-1-e2e-sandbox-app-token-value'];
const unavailable = await probeSandbox(createBubblewrapSandbox({ network: true, hiddenPaths: [] }));
const run = promisify(execFile);

let server: ScriptedModelServer;
let home: string;

beforeAll(async () => {
  server = await startScriptedModelServer({ modelId: 'qwen2.5-coder:7b' });
});
afterAll(async () => {
  await server.close();
});
beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), 'tsuka-ask-sandbox-'));
  await mkdir(path.join(home, 'workspace'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

const rot13 = (text: string) =>
  text.replace(/[a-z]/gi, (letter) => String.fromCharCode(((letter.toLowerCase().charCodeAt(0) - 97 + 13) % 26) + (letter < 'a' ? 65 : 97)));
const ROT13_PARENT_ENVIRON = `tr 'A-Za-z' 'N-ZA-Mn-za-m' < /proc/$PPID/environ`;

/** Every tool result the model was given in the last request, each also decoded from base64, reversed and rot13. */
function toolResultsDecoded(): string {
  const body = server.requests.at(-1)!.body as { messages: { role: string; content: string }[] };
  const results = body.messages.filter((message) => message.role === 'tool').map((message) => message.content);
  return results
    .flatMap((result) => {
      const lines = result.split('\n');
      return [result, ...lines.map((line) => Buffer.from(line.trim(), 'base64').toString('latin1')), [...result].reverse().join(''), rot13(result)];
    })
    .join('\n');
}

async function askAsProcess(extra: NodeJS.ProcessEnv): Promise<{ stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    TSUKA_LLM_BASE_URL: server.baseURL,
    TSUKA_DATA_DIR: path.join(home, 'data'),
    TSUKA_WORKSPACE: path.join(home, 'workspace'),
    TSUKA_LOG_LEVEL: 'error',
    SLACK_BOT_TOKEN: SECRETS[0],
    SLACK_APP_TOKEN: SECRETS[1],
    ...extra,
  };
  return run(process.execPath, [path.join(ROOT, 'bin/tsuka.js'), 'ask', 'geordi', 'find the tokens', '--yes=all'], { env, cwd: home });
}

describe.skipIf(unavailable !== undefined)(`tsuka ask under the sandbox${unavailable ? ` (skipped: bwrap does not work here: ${unavailable})` : ''}`, () => {
  it('no encoding of any /proc/*/environ reaches the model, the reply or the store under bubblewrap', async () => {
    for (const command of [
      'cat /proc/*/environ',
      'base64 -w0 /proc/*/environ',
      'rev /proc/*/environ',
      'base64 -w0 /proc/$PPID/environ',
      ROT13_PARENT_ENVIRON,
    ]) {
      server.enqueue({ toolCalls: [{ name: 'execute_command', arguments: { command } }] });
    }
    server.enqueue({ text: 'I found nothing.' });
    const result = await askAsProcess({ TSUKA_SANDBOX: 'bubblewrap' });
    expect(result.stdout).toContain('I found nothing.');
    const seen = toolResultsDecoded();
    expect(seen).toContain('PATH=');
    for (const secret of SECRETS) {
      expect(seen).not.toContain(secret);
      expect(result.stdout + result.stderr).not.toContain(secret);
    }
    // The store on disk (SQLite and its journal files) holds the run's events: none of them either.
    const dataFiles = await readdir(path.join(home, 'data'), { recursive: true, withFileTypes: true });
    const stored = (
      await Promise.all(dataFiles.filter((entry) => entry.isFile()).map((entry) => readFile(path.join(entry.parentPath, entry.name), 'latin1')))
    ).join('\n');
    expect(stored).toContain('find the tokens');
    for (const secret of SECRETS) expect(stored).not.toContain(secret);
  }, 60_000);
});
