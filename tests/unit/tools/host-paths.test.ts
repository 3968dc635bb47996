/**
 * No host paths on any approval card (issue 40): the workspace's folder on the host becomes
 * `<workspace>` in what a card shows, whichever tool made the preview, and the command keeps its meaning.
 */
import { describe, expect, it } from 'vitest';
import { createAgentRunner } from '../../../src/core/agent/create-agent-runner.js';
import { callTool, createScriptedModel, say } from '../../../src/core/model/scripted-model.js';
import { displayCwd, withoutHostPaths } from '../../../src/core/tools/host-paths.js';
import { createFakeToolRegistry, fakeTool } from '../agent/support/fake-tool-registry.js';
import { createFakeGate, turnInput } from '../agent/support/fixtures.js';

const workspace = { root: '/srv/tsuka/ws', relative: (absolute: string) => absolute.replace(/^\/srv\/tsuka\/ws\/?/, '') };

describe('withoutHostPaths', () => {
  it('names the workspace root <workspace> in the summary and every detail line', () => {
    const shown = withoutHostPaths(
      { summary: 'execute_command cat /srv/tsuka/ws/a.txt', details: ['command: rm -rf /srv/tsuka/ws/build', 'cwd: /srv/tsuka/ws', 'size: 2 KB'] },
      workspace,
    );
    expect(shown).toEqual({
      summary: 'execute_command cat <workspace>/a.txt',
      details: ['command: rm -rf <workspace>/build', 'cwd: <workspace>', 'size: 2 KB'],
    });
  });

  it('shows a command folder relative to the workspace', () => {
    expect(displayCwd(workspace, '/srv/tsuka/ws')).toBe('<workspace>');
    expect(displayCwd(workspace, '/srv/tsuka/ws/packages/api')).toBe('<workspace>/packages/api');
    expect(displayCwd({ root: '/srv/tsuka/ws', relative: () => '../elsewhere' }, '/srv/elsewhere')).toBe('(outside the workspace)');
  });

  it('is applied to what the permission gate (the card) receives, for any tool', async () => {
    const tools = createFakeToolRegistry([fakeTool('write_file', { riskLevel: 'RESTRICTED', properties: { path: { type: 'string' } }, required: ['path'] })]);
    const gate = createFakeGate(async () => ({ outcome: 'denied', decidedBy: 'slack:U1' }));
    const model = createScriptedModel([callTool('write_file', { path: '/workspace/notes/a.md' }, 'c1'), say('Fine.')]);
    await createAgentRunner({ model, tools, permissions: gate }).runTurn(turnInput({ requesterId: 'slack:U1' }));
    // The fixture's workspace root is /workspace: the model's absolute path is shown inside it.
    expect(gate.requests[0]?.summary).toBe('write_file <workspace>/notes/a.md');
    // The call's own arguments are untouched: the approval binds to what will run.
    expect(gate.requests[0]?.arguments).toEqual({ path: '/workspace/notes/a.md' });
  });
});
