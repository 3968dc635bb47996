/**
 * execute_command through the agent loop and the real tool registry under the real bubblewrap
 * sandbox: the bot's secrets never reach the tool output, a role with `"network": false` cuts its
 * commands off, and a /goal step's staging folder is the command's only writable root.
 */
import { createServer, type Server } from 'node:net';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAgentRunner } from '../../../src/core/agent/create-agent-runner.js';
import { callTool, createScriptedModel, say } from '../../../src/core/model/scripted-model.js';
import type { ChatMessage, ModelRequest } from '../../../src/core/model/language-model.js';
import type { Role } from '../../../src/core/data/types.js';
import { createBubblewrapSandbox } from '../../../src/core/safety/bubblewrap-sandbox.js';
import { probeSandbox } from '../../../src/core/safety/select-sandbox.js';
import { builtinToolImplementations } from '../../../src/core/tools/builtin-tools.js';
import { createToolRegistry } from '../../../src/core/tools/create-tool-registry.js';
import { executeCommandTool } from '../../../src/core/tools/impl/execute-command.js';
import { loadToolSchemas } from '../../../src/core/tools/tool-schema-loader.js';
import { createTestToolContext, type TestToolContext } from '../tools/tool-test-context.js';
import { createFakeGate, createRoster, geordi, turnInput } from './support/fixtures.js';

const BOT_TOKEN = 'xoxb-777777777777-sandboxedagentloop';
const unavailable = await probeSandbox(createBubblewrapSandbox({ network: true, hiddenPaths: [] }));

const operatorRole: Role = {
  name: 'operator',
  displayName: 'Operator',
  description: 'Runs commands.',
  systemPrompt: 'Run what is asked.',
  allowedTools: ['execute_command'],
};
const offlineRole: Role = { ...operatorRole, name: 'offline_operator', network: false };

let test: TestToolContext;
let server: Server;
let port: number;
beforeAll(async () => {
  server = createServer((socket) => socket.end('hello from the host\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(async () => {
  test = await createTestToolContext({
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C', SLACK_BOT_TOKEN: BOT_TOKEN },
    sandbox: createBubblewrapSandbox({ network: true, hiddenPaths: [] }),
  });
});
afterEach(() => test.cleanup());

const toolResults = (request: ModelRequest | undefined) =>
  (request?.messages ?? []).filter((message): message is Extract<ChatMessage, { role: 'tool' }> => message.role === 'tool').map((message) => message.content);

async function runAs(role: Role, commands: string[]): Promise<string[]> {
  const schemas = await loadToolSchemas(join(import.meta.dirname, '../../../tools_schemas'));
  const tools = createToolRegistry({
    schemas: new Map([...schemas].filter(([name]) => name === 'execute_command')),
    implementations: builtinToolImplementations({ enableCreateTool: false }).filter((tool) => tool.name === 'execute_command'),
  });
  const roster = createRoster();
  roster.roles.set(role.name, role);
  const character = { ...geordi, roles: [role.name], activeRole: role.name };
  roster.characters.set(character.name, character);
  const model = createScriptedModel([...commands.map((command, index) => callTool('execute_command', { command }, `c${index}`)), say('done')]);
  const { context } = test;
  await createAgentRunner({ model, tools, permissions: createFakeGate(async () => ({ outcome: 'approved' })), settings: { tier: 'LARGE' } }).runTurn(
    turnInput({
      character,
      roster,
      toolContext: {
        workspace: context.workspace,
        childEnv: context.childEnv,
        sandbox: context.sandbox,
        maskSecrets: context.maskSecrets,
        logger: context.logger,
      },
    }),
  );
  return toolResults(model.requests.at(-1));
}

const connect = () =>
  `node -e "require('net').connect(${port}, '127.0.0.1').on('data', (d) => process.stdout.write('got ' + d)).on('error', (e) => console.log('error ' + e.code))"`;

describe.skipIf(unavailable !== undefined)(
  `execute_command in the agent loop under bubblewrap${unavailable ? ` (skipped: bwrap does not work here: ${unavailable})` : ''}`,
  () => {
    it('reading /proc in any encoding gives the model none of the bot secrets', async () => {
      const results = await runAs(operatorRole, ['cat /proc/*/environ', 'base64 -w0 /proc/$PPID/environ', 'rev /proc/*/environ']);
      expect(results).toHaveLength(3);
      expect(results[0]).toMatch(/^exit 0\n.*PATH=/s);
      const decoded = Buffer.from(results[1]!.split('\n')[1]!, 'base64').toString('utf8');
      expect(decoded).toContain('PATH=');
      for (const text of [...results, decoded, [...results[2]!].reverse().join('')]) expect(text).not.toContain(BOT_TOKEN);
    });

    it('a role with "network": false gets no network; a role without the field does', async () => {
      expect((await runAs(operatorRole, [connect()]))[0]).toContain('got hello from the host');
      expect((await runAs(offlineRole, [connect()]))[0]).toContain('error ECONNREFUSED');
    });

    it("a /goal step's staging folder is the command's root: writable, and the workspace is not there", async () => {
      const staging = join(test.outside, 'staging');
      await mkdir(staging);
      await writeFile(join(test.root, 'in-workspace.txt'), 'real workspace');
      test.context.services.cwd = staging;
      const result = await executeCommandTool.execute(
        { command: `echo step > made.txt; cat '${test.root}/in-workspace.txt' || echo not-visible` },
        test.context,
      );
      expect(result.output).toContain('not-visible');
      expect(existsSync(join(staging, 'made.txt'))).toBe(true);
    });
  },
);
