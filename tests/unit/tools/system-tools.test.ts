import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { builtinToolImplementations } from '../../../src/core/tools/builtin-tools.js';
import { createToolRegistry } from '../../../src/core/tools/create-tool-registry.js';
import { executeCommandTool } from '../../../src/core/tools/impl/execute-command.js';
import { getPsInfoTool } from '../../../src/core/tools/impl/get-ps-info.js';
import { loadToolSchemas } from '../../../src/core/tools/tool-schema-loader.js';
import { createTestToolContext, type TestToolContext, waitForFile } from './tool-test-context.js';

const BOT_TOKEN = 'xoxb-123456789012-abcdefghijklmnop';

let test: TestToolContext;
beforeEach(async () => {
  test = await createTestToolContext({ env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C', SLACK_BOT_TOKEN: BOT_TOKEN, PLAIN_SETTING: 'visible' } });
});
afterEach(() => test.cleanup());

describe('execute_command', () => {
  it('passes the per-call classification through the registry', async () => {
    const schemas = await loadToolSchemas(join(import.meta.dirname, '../../../tools_schemas'));
    const registry = createToolRegistry({
      schemas: new Map([...schemas].filter(([name]) => name === 'execute_command')),
      implementations: builtinToolImplementations({ enableCreateTool: false }).filter((tool) => tool.name === 'execute_command'),
    });
    expect(registry.schema('execute_command')?.riskLevel).toBe('DANGEROUS');
    expect((await registry.classify('execute_command', { command: 'ls -la' }, test.context)).level).toBe('SAFE');
    expect((await registry.classify('execute_command', { command: 'rm -rf x' }, test.context)).level).toBe('DANGEROUS');
  });

  it('runs in the workspace and reports the exit code and line count', async () => {
    const result = await executeCommandTool.execute({ command: 'pwd; echo second; exit 3' }, test.context);
    expect(result.output).toBe(`exit 3\n${test.root}\nsecond`);
    expect(result.display).toBe('exit 3 · 2 lines');
    expect(result.isError).toBeUndefined();
  });

  it('runs in services.cwd when a staging folder is set', async () => {
    test.context.services.cwd = test.outside;
    const result = await executeCommandTool.execute({ command: 'pwd' }, test.context);
    expect(result.output).toBe(`exit 0\n${test.outside}`);
    const preview = await executeCommandTool.preview({ command: 'pwd' }, test.context);
    // Never the host folder on a card (issue 40): a cwd outside this workspace is named as such.
    expect(preview.details).toContain('cwd: (outside the workspace)');
    expect(preview.details?.join('\n')).not.toContain(test.outside);
  });

  it('previews the command, the cwd and the classifier reason', async () => {
    const preview = await executeCommandTool.preview({ command: 'rm -rf build' }, test.context);
    expect(preview.summary).toBe('execute_command rm -rf build');
    expect(preview.details?.[0]).toBe('command: rm -rf build');
    expect(preview.details?.[1]).toBe('cwd: <workspace>');
    expect(preview.details?.[2]).toMatch(/^risk: DANGEROUS — \S/);
  });

  it('kills the command when the timeout passes', async () => {
    const result = await executeCommandTool.execute({ command: 'echo begun; sleep 30', timeout_ms: 1000 }, test.context);
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/^Timed out after 1 s; the process tree was killed/);
    expect(result.output).toContain('begun');
  });

  it('kills the command when the turn is aborted', async () => {
    const marker = join(test.root, 'started');
    const running = executeCommandTool.execute({ command: 'touch started; sleep 30' }, test.context);
    await waitForFile(marker, test.root);
    test.abort.abort();
    const result = await running;
    expect(result).toMatchObject({ isError: true, display: 'stopped' });
    expect(result.output).toMatch(/^Stopped before it finished/);
  });

  it('never shows the bot token to the child process', async () => {
    const result = await executeCommandTool.execute({ command: 'printenv' }, test.context);
    expect(result.output).toContain('PLAIN_SETTING=visible');
    expect(result.output).not.toContain(BOT_TOKEN);
    expect(result.output).not.toContain('SLACK_BOT_TOKEN');
  });
});

describe('get_ps_info', () => {
  it('reports each category', async () => {
    expect((await getPsInfoTool.execute({ category: 'cpu' }, test.context)).output).toMatch(/^model: .+\ncores: \d+/);
    expect((await getPsInfoTool.execute({ category: 'memory' }, test.context)).output).toMatch(/^total: [\d.]+ [KMGT]B\nfree: /);
    expect((await getPsInfoTool.execute({ category: 'disk' }, test.context)).output).toMatch(/^workspace: .+ used of .+\n\/: /);
    expect((await getPsInfoTool.execute({ category: 'system' }, test.context)).output).toContain(`node: ${process.version}`);
  });

  it('lists the top processes by memory through ps', async () => {
    const result = await getPsInfoTool.execute({ category: 'processes' }, test.context);
    const lines = result.output.split('\n');
    expect(lines[0]).toMatch(/^top \d+ processes by memory/);
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.length).toBeLessThanOrEqual(16);
    expect(lines[1]).toMatch(/^\s*\d+\s+[\d.]+ [BKMG]B?\s+\S/);
  });
});
