/**
 * `tsuka ask` end to end: the real CLI (config, engine, provider over HTTP, agent loop, tools,
 * jail, permissions, store) against the scripted OpenAI-compatible server on 127.0.0.1.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { deltaEvent, sseEvent, startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server.js';
import { TEST_SANDBOX_ENVIRONMENT } from '../support/test-sandbox.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SECRET_TOKEN = 'xoxb-1111-2222-supersecretvalue';

let server: ScriptedModelServer;
let home: string;
let workspace: string;
let outside: string;

beforeAll(async () => {
  // main() imports each command's module graph when it runs; load it here, outside the tests' time limit.
  await import('../../src/cli/ask-command.js');
  server = await startScriptedModelServer({ modelId: 'qwen2.5-coder:7b' });
});
afterAll(async () => {
  await server.close();
});
beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), 'tsuka-ask-'));
  workspace = path.join(home, 'workspace');
  outside = path.join(home, 'outside');
  await mkdir(workspace, { recursive: true });
  await mkdir(outside, { recursive: true });
  await writeFile(path.join(workspace, 'notes.md'), 'The build uses vitest.\n');
  await writeFile(path.join(outside, 'secret.txt'), 'TOP-SECRET-CONTENT\n');
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

function environment(): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    TSUKA_LLM_BASE_URL: server.baseURL,
    TSUKA_DATA_DIR: path.join(home, 'data'),
    TSUKA_WORKSPACE: workspace,
    SLACK_BOT_TOKEN: SECRET_TOKEN,
    SLACK_APP_TOKEN: 'xapp-1-secret-app-token-value',
    MY_API_KEY: 'sk-verysecretkeyvalue1234567890',
    ...TEST_SANDBOX_ENVIRONMENT,
  };
}

async function ask(args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const status = await main(['ask', ...args], {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    environment: environment(),
    workingDirectory: home,
  });
  return { status, stdout, stderr };
}

/** The tool result the model was given for its last call (what the agent saw). */
function lastToolResult(): string {
  const body = server.requests.at(-1)!.body as { messages: { role: string; content: string }[] };
  return body.messages.filter((message) => message.role === 'tool').at(-1)!.content;
}

describe('tsuka ask', () => {
  it('lists the workspace, reads a file, is denied a write without --yes, and answers', async () => {
    server.enqueue({ toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }] });
    server.enqueue({ toolCalls: [{ name: 'read_file', arguments: { path: 'notes.md' } }] });
    server.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'out.txt', content: 'hello' } }] });
    server.enqueue({ text: 'The build uses vitest; I could not write out.txt.', chunkSize: 7 });
    const result = await ask(['geordi', 'what does the build use?']);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('The build uses vitest; I could not write out.txt.');
    expect(result.stderr).toMatch(/list_dir/);
    expect(result.stderr).toMatch(/read_file notes\.md/);
    expect(result.stderr).toMatch(/⛔ denied \(RESTRICTED\) write_file/);
    await expect(readFile(path.join(workspace, 'out.txt'), 'utf8')).rejects.toThrow();
    const toolMessages = (server.requests.at(-1)!.body as { messages: { role: string; content: string }[] }).messages.filter((m) => m.role === 'tool');
    expect(toolMessages[0]!.content).toContain('notes.md');
    expect(toolMessages[1]!.content).toContain('The build uses vitest.');
    expect(toolMessages[2]!.content).toMatch(/denied/i);
  });

  it('writes the file with --yes', async () => {
    server.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'out.txt', content: 'hello' } }] });
    server.enqueue({ text: 'Written.' });
    const result = await ask(['geordi', 'write hello to out.txt', '--yes']);
    expect(result.status).toBe(0);
    expect(await readFile(path.join(workspace, 'out.txt'), 'utf8')).toBe('hello');
  });

  it('--yes does not cover DANGEROUS commands; --yes=all does', async () => {
    server.enqueue({ toolCalls: [{ name: 'execute_command', arguments: { command: 'rm notes.md' } }] });
    server.enqueue({ text: 'ok' });
    expect((await ask(['geordi', 'delete notes', '--yes'])).stderr).toMatch(/⛔ denied \(DANGEROUS\)/);
    await expect(readFile(path.join(workspace, 'notes.md'), 'utf8')).resolves.toContain('vitest');
    server.enqueue({ toolCalls: [{ name: 'execute_command', arguments: { command: 'rm notes.md' } }] });
    server.enqueue({ text: 'ok' });
    expect((await ask(['geordi', 'delete notes', '--yes=all'])).status).toBe(0);
    await expect(readFile(path.join(workspace, 'notes.md'), 'utf8')).rejects.toThrow();
    // Both decisions are in the audit log, the host operator's flags as the one who decided.
    let out = '';
    const io = { stdout: (text: string) => void (out += text), stderr: () => undefined, environment: environment(), workingDirectory: home };
    expect(await main(['audit', '--json'], io)).toBe(0);
    const decisions = out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((entry) => entry.tool === 'execute_command');
    expect(decisions.map((entry) => [entry.decision, entry.actor, entry.riskLevel, entry.summary])).toEqual([
      ['denied', 'cli', 'DANGEROUS', expect.stringContaining('rm notes.md')],
      ['approved', 'cli', 'DANGEROUS', expect.stringContaining('rm notes.md')],
    ]);
  });

  it('refuses a symlink that escapes the workspace', async () => {
    await symlink(path.join(outside, 'secret.txt'), path.join(workspace, 'link.txt'));
    server.enqueue({ toolCalls: [{ name: 'read_file', arguments: { path: 'link.txt' } }] });
    server.enqueue({ text: 'I cannot read that.' });
    const result = await ask(['geordi', 'read link.txt']);
    expect(result.status).toBe(0);
    const seen = lastToolResult();
    expect(seen).toMatch(/outside the workspace/);
    expect(seen).not.toContain('TOP-SECRET-CONTENT');
  });

  it('printenv through execute_command shows none of the bot secrets', async () => {
    server.enqueue({ toolCalls: [{ name: 'execute_command', arguments: { command: 'printenv' } }] });
    server.enqueue({ text: 'done' });
    const result = await ask(['geordi', 'show the environment', '--yes=all']);
    expect(result.status).toBe(0);
    const seen = lastToolResult();
    expect(seen).toContain('PATH=');
    expect(seen).not.toContain(SECRET_TOKEN);
    expect(seen).not.toContain('SLACK_BOT_TOKEN');
    expect(seen).not.toContain('sk-verysecretkeyvalue1234567890');
    expect(JSON.stringify(server.requests)).not.toContain(SECRET_TOKEN);
  });

  it('fails with a clear message for an unknown character and when no model answers', async () => {
    const probesBefore = server.hits.length;
    const unknown = await ask(['geordy', 'hi']);
    expect(unknown.status).toBe(2);
    // Checked before any model server is probed.
    expect(server.hits.length).toBe(probesBefore);
    expect(unknown.stderr).toMatch(/Unknown character "geordy". Did you mean geordi/);
    let stderr = '';
    const status = await main(['ask', 'geordi', 'hi'], {
      stdout: () => undefined,
      stderr: (text) => (stderr += text),
      environment: { ...environment(), TSUKA_LLM_BASE_URL: 'http://127.0.0.1:9/v1' },
      workingDirectory: home,
    });
    expect(status).toBe(3);
    // A configured URL is binding: one line naming it, no fallback to other servers.
    expect(stderr).toBe('The model server http://127.0.0.1:9/v1 (TSUKA_LLM_BASE_URL) does not answer. Start it, or change TSUKA_LLM_BASE_URL.\n');
  });

  it('runs as a real process through bin/tsuka.js and remembers across invocations', async () => {
    const run = promisify(execFile);
    const env = { ...environment(), TSUKA_LOG_LEVEL: 'error', TSUKA_RUN_FROM_SOURCE: '1' };
    server.enqueue({ toolCalls: [{ name: 'load_tools', arguments: { names: ['save_memory'] } }] });
    server.enqueue({ toolCalls: [{ name: 'save_memory', arguments: { content: 'The staging database is called tsuka_stage_db.' } }] });
    server.enqueue({ text: 'Saved.' });
    const first = await run(process.execPath, [path.join(ROOT, 'bin/tsuka.js'), 'ask', 'geordi', 'remember the staging db name'], { env, cwd: home });
    expect(first.stdout).toContain('Saved.');
    expect(first.stderr).toMatch(/save_memory/);
    expect(lastToolResult()).not.toMatch(/error/i);
    server.enqueue({ text: 'It is tsuka_stage_db.' });
    const second = await run(process.execPath, [path.join(ROOT, 'bin/tsuka.js'), 'ask', 'worf', 'what is the staging database called?'], { env, cwd: home });
    expect(second.stdout).toContain('It is tsuka_stage_db.');
    // The second process, a different character, got the fact in its system prompt.
    const system = (server.requests.at(-1)!.body as { messages: { role: string; content: string }[] }).messages[0]!;
    expect(system.role).toBe('system');
    expect(system.content).toContain('tsuka_stage_db');
  }, 60_000);
});

describe('tsuka ask with what real model servers send', () => {
  const MARKUP = /<tool_call>|<\/tool_call>|<function=|<parameter=|\[TOOL_CALLS\]|"arguments"/;

  it('runs a tool call the model wrote as text once, and prints no markup', async () => {
    const call = '<tool_call>\n{"name": "read_file", "arguments": {"path": "notes.md"}}\n</tool_call>';
    server.enqueue({
      rawEvents: [
        deltaEvent({ role: 'assistant', content: 'Let me read it.\n' }),
        ...[...call].map((char) => deltaEvent({ content: char })),
        deltaEvent({}, 'stop'),
      ],
    });
    server.enqueue({ text: 'The build uses vitest.' });
    const result = await ask(['geordi', 'what does the build use?']);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('Let me read it.');
    expect(result.stdout).toContain('The build uses vitest.');
    expect(result.stdout).not.toMatch(MARKUP);
    expect(result.stderr.match(/read_file notes\.md/g)).toHaveLength(1);
    expect(lastToolResult()).toContain('The build uses vitest.');
  });

  it('prints none of the Qwen3-Coder markup llama.cpp streams before the call it parsed', async () => {
    server.enqueue({
      rawEvents: [
        deltaEvent({ role: 'assistant', content: null }),
        deltaEvent({ content: 'Checking.' }),
        deltaEvent({ content: '\n' }),
        deltaEvent({ content: '<tool_call>\n' }),
        deltaEvent({ content: '<function=list' }),
        deltaEvent({ content: '_dir' }),
        deltaEvent({}),
        deltaEvent({ tool_calls: [{ index: 0, id: 'CALL_ID', type: 'function', function: { name: 'list_dir', arguments: '{"path":' } }] }),
        deltaEvent({ tool_calls: [{ index: 0, function: { arguments: '"."}' } }] }),
        deltaEvent({}, 'tool_calls'),
      ],
    });
    server.enqueue({ text: 'There is notes.md.' });
    const result = await ask(['geordi', 'what is here?']);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('Checking.');
    expect(result.stdout).toContain('There is notes.md.');
    expect(result.stdout).not.toMatch(MARKUP);
    expect(result.stderr.match(/list_dir/g)).toHaveLength(1);
  });

  it('names the cause of an error chunk mid-stream in one line and exits non-zero', async () => {
    server.enqueue({
      rawEvents: [
        ': OPENROUTER PROCESSING\n\n',
        deltaEvent({ role: 'assistant', content: '', reasoning: 'We need' }),
        deltaEvent({ content: 'A long' }, 'length'),
        sseEvent({ id: 'gen-1', error: { code: 400, message: 'Token limit reached' }, choices: [{ index: 0, delta: { content: '' }, finish_reason: null }] }),
      ],
    });
    const result = await ask(['geordi', 'write a long essay']);
    expect(result.status).not.toBe(0);
    const errorLines = result.stderr.split('\n').filter((line) => line.startsWith('Error:'));
    expect(errorLines).toHaveLength(1);
    expect(errorLines[0]).toMatch(/Token limit reached/);
    expect(errorLines[0]).not.toMatch(/could not be read/);
  });
});

describe('tsuka ask says why an answer is not whole, as the thread does', () => {
  /** The real process (bin/tsuka.js), so the exit status is the one a shell sees. */
  async function askProcess(args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
    const env = { ...environment(), TSUKA_LOG_LEVEL: 'error', TSUKA_RUN_FROM_SOURCE: '1' };
    return new Promise((resolve) => {
      execFile(process.execPath, [path.join(ROOT, 'bin/tsuka.js'), 'ask', ...args], { env, cwd: home }, (error, stdout, stderr) => {
        const status = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ status, stdout, stderr });
      });
    });
  }

  it('an answer cut at the output-token limit: the part written on stdout, one line on stderr, exit 4', async () => {
    server.enqueue({
      rawEvents: [deltaEvent({ role: 'assistant', content: 'The build uses vit' }), deltaEvent({}, 'length')],
    });
    const result = await askProcess(['geordi', 'which test runner?']);
    expect(result.stdout).toBe('The build uses vit\n');
    expect(result.stderr).toBe("⚠️ The answer reached the model's output limit and was cut.\n");
    expect(result.status).toBe(4);
  }, 60_000);

  it('an empty answer: nothing on stdout, one line on stderr, exit 5', async () => {
    server.enqueue({ rawEvents: [deltaEvent({ role: 'assistant', content: '' }), deltaEvent({}, 'stop')] });
    const result = await askProcess(['geordi', 'say nothing']);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('(no answer: the model returned nothing)\n');
    expect(result.status).toBe(5);
  }, 60_000);
});
