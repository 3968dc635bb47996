/** The model's tier sets its default effort and whether the prompt expects tool calls written as text. */
import { describe, expect, it } from 'vitest';
import { createAgentRunner } from '../../../src/core/agent/create-agent-runner.js';
import { TEXT_TOOL_CALL_HINT } from '../../../src/core/agent/tier-defaults.js';
import type { AgentSettings } from '../../../src/core/agent/agent-defaults.js';
import { createScriptedModel, say } from '../../../src/core/model/scripted-model.js';
import { createFakeToolRegistry, fakeTool } from './support/fake-tool-registry.js';
import { createFakeGate, turnInput } from './support/fixtures.js';

async function firstRequest(settings: Partial<AgentSettings>, overrides: Parameters<typeof turnInput>[0] = {}) {
  const model = createScriptedModel([say('ok')]);
  const tools = createFakeToolRegistry([fakeTool('read_file', { properties: { path: { type: 'string' } } })]);
  const input = turnInput(overrides);
  // The tier default is the last word: take the role's and the character's effort away.
  input.character = { ...input.character, reasoningEffort: undefined };
  // Copies: the roles are the shared fixtures other files read (the unit project shares modules across files).
  const roles = new Map([...input.roster.roles].map(([name, role]) => [name, { ...role, reasoningEffort: undefined }]));
  input.roster = { ...input.roster, roles };
  await createAgentRunner({ model, tools, permissions: createFakeGate(), settings }).runTurn(input);
  return model.requests[0]!;
}

describe('tier defaults', () => {
  it('a SMALL model reasons at low effort and is told how to write a tool call as text', async () => {
    const request = await firstRequest({ tier: 'SMALL' });
    expect(request.effort).toBe('low');
    expect(request.tools?.map((tool) => tool.name)).toContain('read_file');
    expect(request.messages[0]!.content).toContain(TEXT_TOOL_CALL_HINT);
  });

  it('a LARGE model gets medium effort and no text-call hint', async () => {
    const request = await firstRequest({ tier: 'LARGE' });
    expect(request.effort).toBe('medium');
    expect(request.messages[0]!.content).not.toContain('<tool_call>');
  });

  it('a profile that measured native calls overrides the tier, and the configured effort and the pin win over it', async () => {
    expect((await firstRequest({ tier: 'SMALL', textToolCallsExpected: false })).messages[0]!.content).not.toContain('<tool_call>');
    expect((await firstRequest({ tier: 'MEDIUM', textToolCallsExpected: true })).messages[0]!.content).toContain(TEXT_TOOL_CALL_HINT);
    expect((await firstRequest({ tier: 'SMALL', defaultEffort: 'xhigh' })).effort).toBe('xhigh');
    expect((await firstRequest({ tier: 'SMALL' }, { effort: { pin: 'none' } })).effort).toBe('none');
  });
});
