import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveForRunLabel, fitButtonLabel } from '../../../src/commands/reply/button-label.js';
import { blocksFor } from '../../../src/adapters/slack/cards.js';
import { componentsFor } from '../../../src/adapters/discord/cards.js';
import { buttonViews } from '../../../src/adapters/playground/cards.js';
import { classifyCommand } from '../../../src/core/safety/command-risk.js';
import { commandGrantScope } from '../../../src/core/safety/command-scope.js';
import { createPermissionManager } from '../../../src/core/safety/permission-manager.js';
import type { PermissionPrompt, PermissionRequest } from '../../../src/core/safety/permission-port.js';

let root: string;
beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'tsuka-grant-'));
});
afterAll(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

let sequence = 0;
/** The request the tool executor makes for `command`, from the real classifier. */
function commandRequest(command: string, runId = 'run-1'): PermissionRequest {
  const risk = classifyCommand(command, { workspaceRoot: root });
  if (risk.level === 'SAFE') throw new Error(`${command} is SAFE`);
  sequence += 1;
  return {
    id: `req-${sequence}`,
    runId,
    toolCallId: `call-${sequence}`,
    toolName: 'execute_command',
    riskLevel: risk.level,
    reason: risk.reason,
    summary: `execute_command ${command}`,
    details: [],
    agentName: 'geordi',
    allowForRun: risk.level === 'RESTRICTED',
    ...(risk.grantScope !== undefined ? { grantScope: risk.grantScope } : {}),
  };
}

/** A person who presses "Approve for this run" on every prompt; records what was asked. */
function approvesForRun(): PermissionPrompt & { asked: string[] } {
  const asked: string[] = [];
  return { asked, ask: async (request) => (asked.push(request.summary), { outcome: 'approved-for-run', decidedBy: 'slack:U1' }) };
}

const live = (): AbortSignal => new AbortController().signal;

describe('"Approve for this run" is bound to what was approved', () => {
  it('approving `mkdir d6` for the run does not let `node evil.js` through: it asks again', async () => {
    const prompt = approvesForRun();
    const manager = createPermissionManager({ prompt });
    expect(await manager.check(commandRequest('mkdir d6'), live())).toMatchObject({ outcome: 'approved-for-run' });
    expect(await manager.check(commandRequest('mkdir d7'), live())).toMatchObject({ outcome: 'approved' });
    expect(prompt.asked).toEqual(['execute_command mkdir d6']);
    await manager.check(commandRequest('node evil.js'), live());
    expect(prompt.asked).toEqual(['execute_command mkdir d6', 'execute_command node evil.js']);
    expect(manager.approvedForRun('run-1')).toEqual(['execute_command: mkdir', 'execute_command: node evil.js']);
  });

  it('`npm test` twice asks once; `npm run build` and `git add` are other grants', async () => {
    const prompt = approvesForRun();
    const manager = createPermissionManager({ prompt });
    for (const command of ['npm test', 'npm test', 'npm run build', 'npm run lint', 'git add .', 'git add src', 'git commit -m "x"']) {
      await manager.check(commandRequest(command, 'run-2'), live());
    }
    expect(prompt.asked).toEqual([
      'execute_command npm test',
      'execute_command npm run build',
      'execute_command npm run lint',
      'execute_command git add .',
      'execute_command git commit -m "x"',
    ]);
  });

  it('a DANGEROUS call never passes by a grant, even of the same program', async () => {
    const prompt = approvesForRun();
    const manager = createPermissionManager({ prompt });
    await manager.check(commandRequest('git add .', 'run-3'), live());
    await manager.check(commandRequest('git checkout main', 'run-3'), live());
    const dangerous = ['git checkout -f', 'git checkout -- src', 'git reset --hard', 'rm -rf d6', 'npm install -g left-pad'];
    for (const command of dangerous) {
      const request = commandRequest(command, 'run-3');
      expect(request.riskLevel, command).toBe('DANGEROUS');
      expect(request.allowForRun).toBe(false);
      const decision = await manager.check(request, live());
      // Asked each time, and an "approved-for-run" answer is downgraded to a one-off approval.
      expect(decision.outcome).toBe('approved');
    }
    expect(prompt.asked.slice(2)).toEqual(dangerous.map((command) => `execute_command ${command}`));
    expect(manager.approvedForRun('run-3')).toEqual(['execute_command: git add', 'execute_command: git checkout']);
  });

  it('other tools keep a per-tool grant', async () => {
    const prompt = approvesForRun();
    const manager = createPermissionManager({ prompt });
    const write = (file: string): PermissionRequest => ({
      id: file,
      runId: 'run-4',
      toolCallId: file,
      toolName: 'write_file',
      riskLevel: 'RESTRICTED',
      reason: 'writes',
      summary: `write_file ${file}`,
      details: [],
      agentName: 'geordi',
      allowForRun: true,
    });
    await manager.check(write('a.md'), live());
    await manager.check(write('b.md'), live());
    expect(prompt.asked).toEqual(['write_file a.md']);
  });

  it.each([
    ['npm test', 'npm test'],
    ['npm t -- --watch=false', 'npm t'],
    ['npm run build -- --prod', 'npm run build'],
    ['git add -A', 'git add'],
    ['mkdir -p a/b', 'mkdir'],
    ['node scripts/report.js --fast', 'node scripts/report.js'],
    ['python3 -m pytest -q', 'python3 -m pytest'],
    ['make test', 'make test'],
    ['npx vitest run', 'npx vitest'],
    ['cargo test', 'cargo test'],
  ])('`%s` is granted as `%s`', (command, scope) => {
    expect(classifyCommand(command, { workspaceRoot: root })).toMatchObject({ level: 'RESTRICTED', grantScope: scope });
    expect(commandGrantScope(command.split(' '))).toBe(scope);
  });
});

describe('the button says what it covers, within Slack (75) and Discord (80) label limits', () => {
  it('names the scope in plain text: a button label shows Markdown literally, so no backticks (issue 24)', () => {
    expect(approveForRunLabel('npm test')).toBe('Approve “npm test” for this run');
    expect(approveForRunLabel('write_file')).toBe('Approve “write_file” for this run');
    // A scope with quote marks or backticks of its own stays one quoted span, without Markdown.
    expect(approveForRunLabel('echo `x` “y”')).toBe('Approve “echo "x" "y"” for this run');
  });

  it('turns any Markdown code span in a label into plain text on Slack, Discord and the playground', () => {
    const label = 'Approve `write_file` for this run';
    const slack = (blocksFor('x', [{ actionId: 'a', label, style: 'primary', value: 'v' }])!.at(-1) as { elements: { text: { text: string } }[] }).elements[0]!;
    const discord = componentsFor([{ actionId: 'a', label, style: 'primary', value: 'v' }])[0]!.components[0] as { label: string };
    const playground = buttonViews([{ actionId: 'a', label, style: 'primary', value: 'v' }])[0]!;
    for (const shown of [slack.text.text, discord.label, playground.label]) expect(shown).toBe('Approve “write_file” for this run');
    expect(fitButtonLabel('a stray ` backtick', 75)).toBe("a stray ' backtick");
  });

  it('shortens the scope, not the words, when the label is too long', () => {
    const label = approveForRunLabel(`node ${'scripts/'.repeat(12)}report.js`);
    const slack = fitButtonLabel(label, 75);
    const discord = fitButtonLabel(label, 80);
    expect(slack.length).toBeLessThanOrEqual(75);
    expect(discord.length).toBeLessThanOrEqual(80);
    expect(slack).toMatch(/^Approve “node scripts\/.*…” for this run$/);
    const slackButton = (
      blocksFor('x', [{ actionId: 'tsuka_approve_run', label, style: 'primary', value: 'v' }])!.at(-1) as { elements: { text: { text: string } }[] }
    ).elements[0]!;
    expect(slackButton.text.text).toBe(slack);
    const discordButton = componentsFor([{ actionId: 'tsuka_approve_run', label, style: 'primary', value: 'v' }])[0]!.components[0] as { label: string };
    expect(discordButton.label).toBe(discord);
  });
});
