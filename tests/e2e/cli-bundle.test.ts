/**
 * The bundle `npm run build` makes (scripts/bundle.mjs), run the way production runs it: built into a
 * copy of the package (sources beside it, current stamp), so bin/tsuka.js runs dist/. Every other
 * test runs the sources; this one proves the bundled code works where bundling can break it —
 * lazy chunks, CommonJS dependencies, files found beside the modules, external native add-ons and
 * platform SDKs — and that `ask` and `doctor` still load no platform SDK. It runs the dist/ that
 * `npm install` built when that is current with the sources, and bundles its own only when it is not.
 */
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSlackEmulator } from '../emulators/slack/slack-emulator.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server.js';
import { demoStdioEntry } from '../support/mcp/demo-mcp-entries.js';
// @ts-expect-error: plain JavaScript without types (it runs before anything is compiled)
import { buildState, sourceDigest, STAMP_FILE } from '../../bin/build-stamp.js';
// @ts-expect-error: plain JavaScript without types (build scripts)
import { bundleCli, copyAssets, METAFILE } from '../../scripts/bundle.mjs';
import { TEST_SANDBOX_ENVIRONMENT } from '../support/test-sandbox.js';

const REPO = path.resolve(import.meta.dirname, '../..');
const SHARED = [
  'src',
  'node_modules',
  'roles',
  'traits',
  'characters',
  'teams',
  'tools_schemas',
  'providers.json',
  'package.json',
  'tsconfig.json',
  'tsconfig.build.json',
];
const PAGE =
  '<html><head><title>Bundle page</title></head><body><main><h1>Bundled reader</h1><p>The reader view ran inside the bundle: linkedom, Readability and turndown.</p></main></body></html>';

let root: string;
let home: string;
let model: ScriptedModelServer;
let page: Server;
let metafile: Metafile;

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'tsuka-bundle-'));
  home = path.join(root, 'home');
  await mkdir(home);
  for (const name of SHARED) await symlink(path.join(REPO, name), path.join(root, name));
  await cp(path.join(REPO, 'bin'), path.join(root, 'bin'), { recursive: true });
  const built = path.join(REPO, 'dist');
  if ((buildState as (root: string) => { current: boolean })(REPO).current && existsSync(path.join(built, METAFILE as string))) {
    // The dist/ `npm install` built (its prepare script runs `npm run build`), current with these sources.
    await cp(built, path.join(root, 'dist'), { recursive: true });
    metafile = JSON.parse(await readFile(path.join(root, 'dist', METAFILE as string), 'utf8')) as Metafile;
  } else {
    // No build, or the sources changed since it (or it predates the metafile): bundled here as `npm run build` does.
    ({ metafile } = (await bundleCli({ root, outdir: path.join(root, 'dist') })) as { metafile: Metafile });
    copyAssets(path.join(REPO, 'src'), path.join(root, 'dist'));
    await writeFile(path.join(root, 'dist', STAMP_FILE as string), JSON.stringify({ digest: (sourceDigest as (root: string) => string)(root) }));
  }
  model = await startScriptedModelServer();
  page = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE));
  page.listen(0, '127.0.0.1');
  await once(page, 'listening');
}, 120_000);
afterAll(async () => {
  await model.close();
  page.close();
  await rm(root, { recursive: true, force: true });
});

function environment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    TSUKA_LLM_BASE_URL: model.baseURL,
    TSUKA_DATA_DIR: path.join(home, 'data'),
    TSUKA_WORKSPACE: path.join(home, 'workspace'),
    ...TEST_SANDBOX_ENVIRONMENT,
    ...extra,
  };
}

async function tsuka(args: string[], extra: Record<string, string> = {}, cwd = home): Promise<{ status: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [path.join(root, 'bin', 'tsuka.js'), ...args], {
      cwd,
      env: environment(extra),
      timeout: 60_000,
    });
    return { status: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { status: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** Every bundled input a chunk loads before it runs, following static imports only. */
function staticInputs(entry: RegExp): string[] {
  const outputs = metafile.outputs;
  const byFile = new Map(Object.keys(outputs).map((file) => [path.basename(file), file]));
  const pending = Object.keys(outputs).filter((file) => entry.test(file));
  expect(pending.length).toBeGreaterThan(0);
  const seen = new Set<string>();
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const imported of outputs[file]!.imports) {
      if (imported.kind !== 'import-statement') continue;
      if (imported.external) seen.add(`external:${imported.path}`);
      else pending.push(byFile.get(path.basename(imported.path))!);
    }
  }
  return [...seen].flatMap((file) => (file.startsWith('external:') ? [file] : Object.keys(outputs[file]!.inputs)));
}

describe('the bundled CLI', () => {
  it('is what bin/tsuka.js runs: the build is current', () => {
    expect((buildState as (root: string) => { current: boolean })(root).current).toBe(true);
  });

  it('ask answers and runs a tool from a lazy chunk (browse_url: linkedom, Readability, turndown)', async () => {
    const url = `http://127.0.0.1:${(page.address() as AddressInfo).port}/`;
    model.enqueue({ toolCalls: [{ name: 'browse_url', arguments: { url } }] });
    model.enqueue({ text: 'bundled hello' });
    const before = model.requests.length;
    // browse_url needs a MEDIUM model; the scripted one is named like a small one.
    const result = await tsuka(['ask', 'geordi', 'read the page', '--yes=all'], { TSUKA_LLM_TIER: 'MEDIUM' });
    expect(result.stderr).not.toMatch(/unexpected error/);
    expect(result.stdout).toContain('bundled hello');
    expect(result.status).toBe(0);
    expect(JSON.stringify(model.requests.slice(before).at(-1)?.body)).toContain('The reader view ran inside the bundle');
  });

  it('ask calls a tool of an MCP server (the SDK bundled in its own lazy chunk)', async () => {
    const cwd = path.join(home, 'with-mcp');
    await mkdir(cwd);
    const demo = demoStdioEntry() as { command: string; args: string[] };
    await writeFile(
      path.join(cwd, 'mcp.json'),
      JSON.stringify({ mcpServers: { demo: { command: demo.command, args: demo.args, sandbox: false, risk: { add: 'SAFE' } } } }),
    );
    model.enqueue({ toolCalls: [{ name: 'mcp__demo__add', arguments: { a: 20, b: 22 } }] });
    model.enqueue({ text: 'added' });
    const before = model.requests.length;
    const result = await tsuka(['ask', 'geordi', 'add them'], {}, cwd);
    expect(result.stdout).toContain('added');
    expect(result.status).toBe(0);
    const lastRequest = model.requests.slice(before).at(-1)!.body as { messages: { role: string; content: string }[] };
    const toolMessage = lastRequest.messages.at(-1);
    expect(toolMessage).toMatchObject({ role: 'tool', content: expect.stringContaining('42') });
  });

  it('reports a broken data file as the sources do (validators precompiled at build time)', async () => {
    const broken = path.join(home, 'broken-workspace');
    await mkdir(path.join(broken, '.tsuka', 'roles'), { recursive: true });
    await writeFile(path.join(broken, '.tsuka', 'roles', 'odd_role.json'), JSON.stringify({ displayName: 'Odd', allowedTools: ['nope'], extra: 1 }));
    const run = async (fromSource: boolean) => {
      const { stderr } = await promisify(execFile)(process.execPath, [path.join(root, 'bin', 'tsuka.js'), 'ask', 'geordi', 'hi', '--workspace', broken], {
        cwd: home,
        env: environment({ TSUKA_DATA_DIR: path.join(home, `fresh-${fromSource}`), ...(fromSource ? { TSUKA_RUN_FROM_SOURCE: '1' } : {}) }),
      }).catch((error: { stderr: string }) => error);
      // A broken created role is skipped with a warning (issue 29): log lines carry their time.
      return stderr.replace(/"time":"[^"]*"/g, '"time":""');
    };
    const bundled = await run(false);
    expect(bundled).toMatch(/odd_role\.json/);
    expect(bundled).toMatch(/extra/);
    // The same lines; only the file's path is shown relative to the package the code runs from.
    expect(bundled).toBe((await run(true)).replaceAll(`${root}/`, ''));
  });

  it('doctor checks the data files and the model server', async () => {
    const result = await tsuka(['doctor']);
    expect(result.stdout).toMatch(/✓ \d+ tool schemas/);
    expect(result.stdout).toMatch(/✓ \d+ roles, \d+ traits, \d+ characters, \d+ teams/);
    expect(result.stdout).toContain(model.baseURL);
  });

  it('ask and doctor load no adapter and no platform SDK; ask no MCP SDK or Redis client either', () => {
    const platform = /src\/adapters\/|node_modules\/(@slack|discord\.js|@discordjs)\/|^external:(@slack|discord\.js|@discordjs)/;
    const ask = staticInputs(/(^|\/)cli\/main\.js$|ask-command-[^/]*\.js$/);
    expect(ask.some((input) => input.endsWith('src/cli/ask-command.ts'))).toBe(true);
    expect(ask.filter((input) => platform.test(input))).toEqual([]);
    expect(ask.filter((input) => /node_modules\/(@modelcontextprotocol|zod|@redis|@keyv\/redis)\//.test(input))).toEqual([]);
    expect(staticInputs(/(^|\/)cli\/main\.js$|doctor-command-[^/]*\.js$/).filter((input) => platform.test(input))).toEqual([]);
  });

  it('start serves the playground (its web/ files found beside the bundle)', async () => {
    const child = spawn(process.execPath, [path.join(root, 'bin', 'tsuka.js'), 'start'], {
      cwd: home,
      env: environment({ TSUKA_HTTP_PORT: '0', TSUKA_DATA_DIR: path.join(home, 'data-playground') }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      await expect.poll(() => /playground on (http:\/\/\S+?)\//.exec(output)?.[1], { timeout: 30_000 }).toBeDefined();
      const base = /playground on (http:\/\/\S+?)\//.exec(output)![1]!;
      const response = await fetch(`${base}/`);
      expect(response.status).toBe(200);
      expect(await response.text()).toMatch(/<!doctype html>/i);
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  }, 60_000);

  it('start answers a Slack mention through the bundled adapter and the external Bolt', async () => {
    const slack = await startSlackEmulator();
    const child = spawn(process.execPath, [path.join(root, 'bin', 'tsuka.js'), 'start'], {
      cwd: home,
      env: environment({
        SLACK_BOT_TOKEN: slack.botToken,
        SLACK_APP_TOKEN: slack.appToken,
        SLACK_API_URL: slack.apiUrl,
        TSUKA_HTTP_PORT: '0',
        TSUKA_DATA_DIR: path.join(home, 'data-slack'),
      }),
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    try {
      await slack.waitForConnection({ timeoutMs: 40_000 });
      model.enqueue({ text: 'hello from the bundle' });
      const mention = await slack.mention({ userId: 'U1', channelId: 'C1', text: `<@${slack.botUserId}> geordi hi` });
      await slack.waitFor(() => slack.thread('C1', mention.ts).some((message) => message.text?.includes('hello from the bundle')), { timeoutMs: 20_000 });
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
      await slack.close();
    }
  }, 90_000);
});
