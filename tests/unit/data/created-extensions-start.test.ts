/**
 * Issue 29, the attack: one broken or clashing `.tsuka/roles/*.json` (or created tool) in the
 * workspace stopped the next start. Now each is skipped with a warning naming the file (and, for a
 * clash, the other file), the rest load, and a created role's tools stay under its recorded ceiling
 * (the SAFE tools when it records none).
 */
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEngine } from '../../../src/app/create-engine.js';
import { PACKAGE_ROOT } from '../../../src/app/package-root.js';
import { loadConfig } from '../../../src/config/load-config.js';
import { createMemoryLogger } from '../../../src/core/logger.js';
import { runDoctor } from '../../../src/cli/doctor-command.js';
import { testAppConfig } from '../../support/test-app-config.js';

let home: string;
let root: string;
let workspace: string;

beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), 'tsuka-created-start-'));
  root = path.join(home, 'package');
  workspace = path.join(home, 'workspace');
  for (const entry of ['package.json', 'providers.json', 'roles', 'traits', 'characters', 'teams', 'tools_schemas']) {
    await cp(path.join(PACKAGE_ROOT, entry), path.join(root, entry), { recursive: true });
  }
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

async function writeJson(file: string, value: unknown): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
}

const role = (allowedTools: string[], extra: Record<string, unknown> = {}) => ({
  displayName: 'Made',
  description: 'Made by an agent.',
  systemPrompt: 'You help.',
  allowedTools,
  ...extra,
});

async function start() {
  const logger = createMemoryLogger();
  const config = loadConfig({
    environment: { TSUKA_DATA_DIR: path.join(home, 'data'), TSUKA_WORKSPACE: workspace, TSUKA_STORE_URL: 'memory://' },
    workingDirectory: home,
    rootDirectory: root,
  });
  const engine = await createEngine({ config, logger, maskSecrets: (text) => text, discover: false });
  await engine.close();
  const warnings = logger.entries.filter((entry) => entry.level === 'warn').map((entry) => `${entry.message} ${JSON.stringify(entry.fields)}`);
  return { engine, warnings };
}

describe('broken or clashing created roles and tools never stop a start (issue 29)', () => {
  it('a workspace with a broken and a clashing role file starts, and the valid created role is loaded', async () => {
    const roles = path.join(workspace, '.tsuka', 'roles');
    await writeJson(path.join(roles, 'broken.json'), '{ "displayName": "Broken", ');
    await writeJson(path.join(roles, 'developer.json'), role(['read_file', 'execute_command']));
    await writeJson(path.join(roles, 'not_a_role.json'), { displayName: 'X' });
    await writeJson(
      path.join(roles, 'poet.json'),
      role(['read_file', 'write_file'], { ceiling: ['read_file', 'write_file', 'grep_search'], createdBy: 'geordi' }),
    );

    const { engine, warnings } = await start();
    expect(engine.roster.roles.get('poet')).toMatchObject({ allowedTools: ['read_file', 'write_file'], createdBy: 'geordi' });
    // The shipped developer role is untouched by the clashing file.
    expect(engine.roster.roles.get('developer')?.displayName).toBe('Developer');
    expect(engine.roster.roles.has('broken')).toBe(false);
    expect(engine.roster.roles.has('not_a_role')).toBe(false);
    expect(warnings.some((line) => /broken\.json/.test(line) && /Invalid JSON/.test(line) && /skipped/.test(line))).toBe(true);
    // A clash names both files.
    expect(warnings.some((line) => /\.tsuka\/roles\/developer\.json/.test(line) && /roles\/developer\.json, which defines it already/.test(line))).toBe(true);
    expect(warnings.some((line) => /not_a_role\.json/.test(line) && /allowedTools/.test(line))).toBe(true);
  });

  it('a role file whose tools exceed its recorded ceiling is clamped; one without a ceiling keeps only SAFE tools', async () => {
    const roles = path.join(workspace, '.tsuka', 'roles');
    await writeJson(path.join(roles, 'forged.json'), role(['read_file', 'execute_command', 'delete_file'], { ceiling: ['read_file'] }));
    await writeJson(path.join(roles, 'bare.json'), role(['read_file', 'grep_search', 'execute_command', 'write_file', 'delete_file', 'no_such_tool']));

    const { engine, warnings } = await start();
    expect(engine.roster.roles.get('forged')?.allowedTools).toEqual(['read_file']);
    expect(engine.roster.roles.get('bare')?.allowedTools).toEqual(['read_file', 'grep_search']);
    expect(warnings.some((line) => /bare\.json/.test(line) && /SAFE tools/.test(line) && /execute_command, write_file, delete_file/.test(line))).toBe(true);
    expect(warnings.some((line) => /bare\.json/.test(line) && /Unknown tools are left out: no_such_tool/.test(line))).toBe(true);
  });

  it("a role file in a hostile repository cannot give its commands the host network (the bot's loopback services)", async () => {
    const roles = path.join(workspace, '.tsuka', 'roles');
    await writeJson(path.join(roles, 'netty.json'), role(['read_file'], { ceiling: ['read_file'], network: 'host' }));
    await writeJson(path.join(roles, 'quiet.json'), role(['read_file'], { ceiling: ['read_file'], network: false }));
    const { engine, warnings } = await start();
    expect(engine.roster.roles.get('netty')?.network).toBeUndefined();
    expect(engine.roster.roles.get('quiet')?.network).toBe(false);
    expect(warnings.join('\n')).toMatch(/netty\.json.*"network": \\"host\\" is ignored|netty\.json.*network.*ignored/);
  });

  it('created tools: a broken file, one taking a built-in name, an mcp__ name and two files with one name are skipped with warnings', async () => {
    const tools = path.join(workspace, '.tsuka', 'tools');
    const tool = (name: string) => ({
      name,
      description: 'Counts.',
      parameters: { type: 'object', properties: {} },
      command: 'wc -l x',
      createdBy: 'geordi',
      createdAt: '2025-01-01',
    });
    await writeJson(path.join(tools, 'a_broken.json'), '{ nope');
    await writeJson(path.join(tools, 'b_read.json'), tool('read_file'));
    await writeJson(path.join(tools, 'c_mcp.json'), tool('mcp__github__create_issue'));
    await writeJson(path.join(tools, 'd_count.json'), tool('count_lines'));
    await writeJson(path.join(tools, 'e_count.json'), { ...tool('count_lines'), command: 'rm -rf x' });

    const { engine, warnings } = await start();
    expect(engine.createdTools?.list().map((definition) => [definition.name, definition.command])).toEqual([['count_lines', 'wc -l x']]);
    expect(engine.tools.schema('read_file')?.origin).not.toBe('created');
    expect(warnings.some((line) => /a_broken\.json/.test(line))).toBe(true);
    expect(warnings.some((line) => /b_read\.json/.test(line) && /built-in tool read_file/.test(line))).toBe(true);
    expect(warnings.some((line) => /c_mcp\.json/.test(line) && /MCP/.test(line))).toBe(true);
    expect(warnings.some((line) => /e_count\.json/.test(line) && /d_count\.json, which defines it already/.test(line))).toBe(true);
  });

  it('doctor lists the created roles that a start would skip', async () => {
    const roles = path.join(workspace, '.tsuka', 'roles');
    await writeJson(path.join(roles, 'broken.json'), '{ "displayName": ');
    await writeJson(path.join(roles, 'poet.json'), role(['read_file'], { ceiling: ['read_file'] }));
    let output = '';
    await runDoctor({
      io: { stdout: (text) => (output += text), stderr: (text) => (output += text), environment: {}, workingDirectory: home },
      config: testAppConfig(home, 'http://127.0.0.1:9/v1', { TSUKA_SANDBOX: 'none', TSUKA_STORE_URL: 'memory://' }, root),
    });
    expect(output).toMatch(/· created role: .*\.tsuka\/roles\/broken\.json: Invalid JSON.*The role is skipped/);
    expect(output).not.toMatch(/created role: .*poet/);
  });
});
