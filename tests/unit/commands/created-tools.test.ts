import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { callTool, say } from '../../../src/core/model/scripted-model.js';
import { APPROVE_ACTION } from '../../../src/commands/approvals/approval-flow.js';
import { createCreatedToolCatalog } from '../../../src/core/tools/created-tools.js';
import { startCommandHarness } from '../../support/command-harness.js';

type Harness = Awaited<ReturnType<typeof startCommandHarness>>;
let harness: Harness;
afterEach(async () => {
  await harness?.stop();
});

const ADMIN = 'playground:admin';

async function approveNext(h: Harness, decided: Set<string>): Promise<string> {
  const pending = () => h.surface.messages.find((message) => !decided.has(message.ref) && message.buttons.some((button) => button.actionId === APPROVE_ACTION));
  await h.surface.waitFor(() => pending() !== undefined);
  const prompt = pending()!;
  decided.add(prompt.ref);
  await h.send({
    platform: 'playground',
    channel: 'playground:general',
    // The calls are DANGEROUS on the shared workspace: someone other than the requester approves (issue 35).
    user: ADMIN,
    fromBot: false,
    type: 'button-action',
    id: `approve-${prompt.ref}`,
    actionId: APPROVE_ACTION,
    value: prompt.buttons.find((button) => button.actionId === APPROVE_ACTION)!.value,
    message: prompt.ref,
    replyEphemeral: async () => undefined,
  });
  return prompt.text;
}

describe('create_tool', () => {
  it('makes a DANGEROUS command tool usable for the rest of the run, kept for the workspace, listed and removable by an admin', async () => {
    const spec = {
      name: 'count_lines',
      description: 'Count the lines of a file.',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      command: 'wc -l {{path}}',
    };
    harness = await startCommandHarness({
      environment: { TSUKA_ENABLE_CREATE_TOOL: '1' },
      modelId: 'scripted-model-14b',
      settings: { admins: [ADMIN] },
      steps: [callTool('create_tool', spec, 'c1'), callTool('count_lines', { path: 'notes.txt' }, 'c2'), say('notes.txt has 3 lines.')],
    });
    const root = harness.engine.workspace.root;
    await writeFile(path.join(root, 'notes.txt'), 'a\nb\nc\n');
    // The doctor's role (assistant) lists create_tool, so it is offered once the operator enables it.
    await harness.mention('doctor make a tool that counts lines, then count notes.txt', { message: 'root' });
    const decided = new Set<string>();
    expect(await approveNext(harness, decided)).toContain('create_tool');
    const second = await approveNext(harness, decided);
    expect(second).toContain("wc -l 'notes.txt'");
    await harness.surface.waitFor(() =>
      harness.surface.inThread('thread:root').some((message) => message.text.includes('has 3 lines') && message.buttons.length === 0),
    );

    expect(harness.model.requests[0]!.messages[0]!.content).toMatch(/## Tools available on demand[\s\S]*- create_tool: Make a new command-line tool/);
    expect((harness.model.requests[1]!.tools ?? []).map((tool) => tool.name)).toContain('count_lines');
    const result = harness.model.requests[2]!.messages.filter((message) => message.role === 'tool').at(-1)!.content;
    expect(result).toMatch(/^exit 0\n\s*3 notes\.txt/);
    const kept = JSON.parse(await readFile(path.join(root, '.tsuka/tools/count_lines.json'), 'utf8')) as { riskLevel: string; command: string };
    expect(kept).toMatchObject({ riskLevel: 'DANGEROUS', command: 'wc -l {{path}}' });

    // Kept for the workspace: a fresh catalogue (a restart) finds it.
    const reloaded = await createCreatedToolCatalog({ workspaceRoot: root, reservedNames: new Set() });
    expect(reloaded.list().map((tool) => tool.name)).toEqual(['count_lines']);

    expect((await harness.slash('tsuka', 'tools'))[0]).toContain('`count_lines` — Count the lines of a file.');
    expect((await harness.slash('tsuka', 'tools remove count_lines'))[0]).toBe('Only an admin can remove a created tool.');
    expect((await harness.slash('tsuka', 'tools remove count_lines', { user: ADMIN }))[0]).toBe('Removed the tool count_lines.');
    expect(harness.engine.tools.has('count_lines')).toBe(false);
    expect((await harness.slash('tsuka', 'tools'))[0]).toContain('No tools were made');
  });
});

describe('create_role', () => {
  it('keeps the new role for the workspace and lists it in /tsuka roles', async () => {
    const role = {
      name: 'release_notes',
      displayName: 'Release Notes Writer',
      description: 'Writes release notes.',
      systemPrompt: 'You write release notes.',
      allowedTools: ['read_file'],
    };
    harness = await startCommandHarness({
      modelId: 'scripted-model-32b',
      settings: { admins: [ADMIN] },
      steps: [callTool('create_role', role, 'c1'), say('Made the role.')],
    });
    await harness.mention('doctor make a release notes role', { message: 'root' });
    const decided = new Set<string>();
    await approveNext(harness, decided);
    await harness.surface.waitFor(() =>
      harness.surface.inThread('thread:root').some((message) => message.text.includes('Made the role.') && message.buttons.length === 0),
    );
    const kept = JSON.parse(await readFile(path.join(harness.engine.workspace.root, '.tsuka/roles/release_notes.json'), 'utf8')) as Record<string, unknown>;
    expect(kept).toMatchObject({ displayName: 'Release Notes Writer', allowedTools: ['read_file'] });
    expect((await harness.slash('tsuka', 'roles'))[0]).toContain('`release_notes` Release Notes Writer');
  });
});
