/**
 * MCP tools through the whole command layer: a character loads and calls a tool of the stdio demo
 * server (SAFE: no approval) and of the Streamable HTTP one (RESTRICTED: approved in the thread,
 * the prompt showing server, tool and arguments); `/tsuka tools` by source; a server that fails to
 * start; a server that dies mid-run.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { callTool, say, type ScriptedStep } from '../../../src/core/model/scripted-model.js';
import type { ModelRequest } from '../../../src/core/model/language-model.js';
import { startCommandHarness } from '../../support/command-harness.js';
import { demoStdioEntry } from '../../support/mcp/demo-mcp-entries.js';
import { startDemoMcpHttpServer, type DemoHttpServer } from '../../support/mcp/demo-mcp-http.js';

type Harness = Awaited<ReturnType<typeof startCommandHarness>>;
let harness: Harness | undefined;
let http: DemoHttpServer | undefined;
let folder: string | undefined;
afterEach(async () => {
  await harness?.stop();
  await http?.close();
  if (folder) await rm(folder, { recursive: true, force: true });
  harness = http = folder = undefined;
});

// The demo server lives in the checkout, which the command sandbox hides: it is declared trusted
// ("sandbox": false). tests/unit/tools/mcp/mcp-sandbox.test.ts covers a server inside the sandbox.
const stdio = { ...(demoStdioEntry() as { command: string; args: string[] }), sandbox: false };

async function harnessWith(servers: Record<string, unknown>, steps: ScriptedStep[]): Promise<Harness> {
  folder = await mkdtemp(path.join(os.tmpdir(), 'tsuka-mcp-'));
  const file = path.join(folder, 'mcp.json');
  await writeFile(file, JSON.stringify({ mcpServers: servers }));
  harness = await startCommandHarness({ steps, environment: { TSUKA_MCP_CONFIG: file, PLAIN_SETTING: 'visible' } });
  await settled(harness);
  return harness;
}

/** Start waits at most 10 s for servers; on a busy machine a server may still be starting: wait for the event. */
function settled(h: Harness): Promise<void> {
  const mcp = h.engine.mcp!;
  const done = () => mcp.statuses().every((status) => status.state === 'ready' || (status.state === 'failed' && status.failures > 0));
  if (done()) return Promise.resolve();
  return new Promise((resolve) => {
    const unsubscribe = mcp.onChange(() => {
      if (done()) {
        unsubscribe();
        resolve();
      }
    });
  });
}

/** The last tool result as the tool gave it: an MCP result reaches the model fenced as untrusted text (issue 41). */
const lastToolResult = (request: ModelRequest): string =>
  request.messages
    .filter((message) => message.role === 'tool')
    .at(-1)!
    .content.replace(/^<untrusted source="[^"]*">\n|\n<\/untrusted>$/g, '');
const offered = (request: ModelRequest): string[] => (request.tools ?? []).map((tool) => tool.name);
const approvalPrompt = (h: Harness) => h.surface.inThread('thread:root').find((message) => message.buttons.some((button) => button.label === 'Approve'));

describe('MCP tools in conversations', { timeout: 60_000 }, () => {
  it('a character loads and calls a SAFE stdio tool without approval', async () => {
    const h = await harnessWith({ demo: { command: stdio.command, args: stdio.args, sandbox: false, risk: { add: 'SAFE' } } }, [
      callTool('load_tools', { names: ['mcp__demo__add'] }),
      callTool('mcp__demo__add', { a: 2, b: 3 }),
      (request) => say(`Sum: ${lastToolResult(request)}`),
    ]);
    await h.mention('geordi add 2 and 3', { message: 'root' });
    await h.surface.waitFor(() => h.surface.inThread('thread:root').some((message) => message.text.includes('Sum: 5') && message.buttons.length === 0));
    expect(offered(h.model.requests[0]!)).not.toContain('mcp__demo__add');
    expect(offered(h.model.requests[1]!)).toContain('mcp__demo__add');
    expect(h.model.requests[1]!.tools!.find((tool) => tool.name === 'mcp__demo__add')!.description).toMatch(
      /Adds two numbers\. \(tool "add" of the MCP server "demo"\)/,
    );
    expect(approvalPrompt(h)).toBeUndefined();
  });

  it('a RESTRICTED tool over Streamable HTTP is approved in the thread; the prompt shows server, tool and arguments', async () => {
    http = await startDemoMcpHttpServer();
    const h = await harnessWith({ web: { url: http.url, headers: { 'x-team': 'ops' } } }, [
      callTool('load_tools', { names: ['mcp__web__add'] }),
      callTool('mcp__web__add', { a: 40, b: 2 }),
      (request) => say(`Result: ${lastToolResult(request)}`),
    ]);
    await h.mention('geordi add 40 and 2', { message: 'root' });
    await h.surface.waitFor(() => approvalPrompt(h) !== undefined);
    const prompt = approvalPrompt(h)!;
    expect(prompt.text).toMatch(/MCP server: web \(http: http:\/\/127\.0\.0\.1:\d+\/mcp\)/);
    expect(prompt.text).toMatch(/Tool: add/);
    expect(prompt.text).toMatch(/Arguments: \{"a":40,"b":2\}/);
    const approve = prompt.buttons.find((button) => button.label === 'Approve')!;
    await h.send({
      type: 'button-action',
      id: 'click-1',
      platform: 'playground',
      channel: 'playground:general',
      user: 'playground:alice',
      fromBot: false,
      actionId: approve.actionId,
      value: approve.value,
      message: prompt.ref,
      thread: 'thread:root',
      replyEphemeral: async () => undefined,
    });
    await h.surface.waitFor(() => h.surface.inThread('thread:root').some((message) => message.text.includes('Result: 42')));
    expect(http.headers.some((headers) => headers['x-team'] === 'ops')).toBe(true);
  });

  it('a denied MCP call reaches the model as a denial and the server is never called', async () => {
    http = await startDemoMcpHttpServer();
    const h = await harnessWith({ web: { url: http.url } }, [
      callTool('load_tools', { names: ['mcp__web__crash'] }),
      callTool('mcp__web__crash', {}),
      (request) => say(`After denial: ${lastToolResult(request)}`),
    ]);
    await h.mention('geordi crash it', { message: 'root' });
    await h.surface.waitFor(() => approvalPrompt(h) !== undefined);
    const prompt = approvalPrompt(h)!;
    const deny = prompt.buttons.find((button) => button.label === 'Deny')!;
    await h.send({
      type: 'button-action',
      id: 'click-2',
      platform: 'playground',
      channel: 'playground:general',
      user: 'playground:alice',
      fromBot: false,
      actionId: deny.actionId,
      value: deny.value,
      message: prompt.ref,
      thread: 'thread:root',
      replyEphemeral: async () => undefined,
    });
    await h.surface.waitFor(() => h.surface.inThread('thread:root').some((message) => message.text.includes('After denial:')));
    expect(h.engine.mcp!.statuses()[0]!.state).toBe('ready');
  });

  it('/tsuka tools lists tools by source, with a server that failed to start and why; roles filter who gets them', async () => {
    const h = await harnessWith(
      {
        demo: { command: stdio.command, args: stdio.args, sandbox: false, roles: ['developer'] },
        broken: { command: stdio.command, args: stdio.args, sandbox: false, env: { DEMO_MCP_FAIL_START: '1' } },
      },
      [],
    );
    const [listing] = await h.slash('tsuka', 'tools');
    expect(listing).toMatch(/✓ \*\*Built-in\*\* \(\d+\)\n.*`read_file`/);
    expect(listing).toMatch(/✓ \*\*MCP server demo\*\* \(5\)\n`mcp__demo__add` `mcp__demo__crash`/);
    expect(listing).toMatch(/✗ \*\*MCP server broken\*\* \(0\) — it could not start: .*DEMO_TOKEN is missing/);
    expect(h.engine.roster.roles.get('developer')!.allowedTools).toContain('mcp__demo__add');
    expect(h.engine.roster.roles.get('researcher')!.allowedTools).not.toContain('mcp__demo__add');
  });

  it('a server that dies mid-run: the call says so, its tools are withdrawn from the next step', async () => {
    const h = await harnessWith({ demo: { command: stdio.command, args: stdio.args, sandbox: false, risk: 'SAFE' } }, [
      callTool('load_tools', { names: ['mcp__demo__crash', 'mcp__demo__add'] }),
      callTool('mcp__demo__crash', {}),
      (request) =>
        say(
          `Seen: ${lastToolResult(request)} | offered: ${
            offered(request)
              .filter((name) => name.startsWith('mcp__'))
              .join(',') || 'none'
          }`,
        ),
    ]);
    await h.mention('geordi crash the server', { message: 'root' });
    await h.surface.waitFor(() => h.surface.inThread('thread:root').some((message) => message.text.includes('Seen:')));
    const answer = h.surface.inThread('thread:root').find((message) => message.text.includes('Seen:'))!.text;
    expect(answer).toMatch(/MCP server "demo" stopped during the call to crash; its tools are withdrawn until it restarts/);
    expect(answer).toMatch(/offered: none/);
  });
});
