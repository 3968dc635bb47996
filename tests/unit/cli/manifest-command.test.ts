/** `tsuka manifest slack`: the manifest a new team pastes, with its chosen name, before any configuration exists. */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main, PACKAGE_ROOT } from '../../../src/cli/main.js';
import { slackManifest, trimAgentDescription } from '../../../src/cli/manifest-command.js';
import { mkdirSync, writeFileSync } from 'node:fs';

async function run(argv: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  // An empty folder with no .env and no tsuka.config.json: the command must not need them.
  const home = await mkdtemp(path.join(os.tmpdir(), 'tsuka-manifest-'));
  let stdout = '';
  let stderr = '';
  try {
    const status = await main(argv, {
      stdout: (text) => void (stdout += text),
      stderr: (text) => void (stderr += text),
      environment: { TSUKA_LLM_TIER: 'nonsense' },
      workingDirectory: home,
    });
    return { status, stdout, stderr };
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

const file = readFileSync(path.join(PACKAGE_ROOT, 'slack-app-manifest.yaml'), 'utf8');

describe('tsuka manifest slack', () => {
  it('prints the manifest with the chosen name as the app and the bot user, everything else as the file has it', async () => {
    const { status, stdout } = await run(['manifest', 'slack', '--name', 'Ops "Crew"']);
    expect(status).toBe(0);
    expect(stdout).toMatch(/^display_information:\n {2}name: "Ops \\"Crew\\""$/m);
    expect(stdout).toMatch(/^ {2}bot_user:\n {4}display_name: "Ops \\"Crew\\""$/m);
    const differing = stdout.split('\n').filter((line, index) => line !== file.split('\n')[index]);
    expect(differing).toEqual(['  name: "Ops \\"Crew\\""', '    display_name: "Ops \\"Crew\\""']);
  });

  it('is TSUKA by default, and needs no configuration (a broken setting does not stop it)', async () => {
    const { status, stdout } = await run(['manifest', 'slack']);
    expect(status).toBe(0);
    expect(stdout).toMatch(/^ {2}name: "TSUKA"$/m);
    expect(stdout).toContain('socket_mode_enabled: true');
  });

  it('prints the agent view with its description within Slack’s 300 characters, a longer one cut with an ellipsis', async () => {
    const { stdout } = await run(['manifest', 'slack']);
    const description = /^ {2}agent_view:\n {4}agent_description: (.+)$/m.exec(stdout)?.[1];
    expect(description).toMatch(/Geordi/);
    expect([...description!].length).toBeLessThanOrEqual(300);
    expect(stdout).toMatch(/bot_events:\n(?:\s+- \S+\n)*\s+- app_home_opened\n/);

    const root = await mkdtemp(path.join(os.tmpdir(), 'tsuka-manifest-long-'));
    try {
      mkdirSync(root, { recursive: true });
      writeFileSync(
        path.join(root, 'slack-app-manifest.yaml'),
        file.replace(/agent_description: .*$/m, `agent_description: ${'Ask a character. '.repeat(30)}`),
      );
      const long = /^ {4}agent_description: (.+)$/m.exec(slackManifest(root, 'TSUKA'))?.[1];
      const printed = JSON.parse(long!) as string;
      expect([...printed]).toHaveLength(300);
      expect(printed.endsWith('…')).toBe(true);
      expect(printed.startsWith('Ask a character. Ask a character.')).toBe(true);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
    expect(trimAgentDescription('  short  ')).toBe('short');
    expect([...trimAgentDescription('é'.repeat(301))]).toHaveLength(300);
  });

  it('refuses a name Slack would refuse, an unknown platform or argument, with exit 2 and one line', async () => {
    expect(await run(['manifest', 'slack', '--name', 'x'.repeat(36)])).toMatchObject({
      status: 2,
      stdout: '',
      stderr: expect.stringMatching(/at most 35 characters/),
    });
    expect(await run(['manifest', 'discord'])).toMatchObject({ status: 2, stderr: expect.stringMatching(/tsuka doctor` prints the invite link/) });
    expect(await run(['manifest', 'slack', '--nme', 'x'])).toMatchObject({ status: 2, stderr: expect.stringMatching(/Unknown argument "--nme"/) });
  });
});
