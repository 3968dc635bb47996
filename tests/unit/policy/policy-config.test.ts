import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readPolicyConfig } from '../../../src/config/policy-config.js';
import { policyDecidesLine, policyMayDecide } from '../../../src/core/policy/policy-decider.js';

describe('readPolicyConfig (fail closed)', () => {
  it('reads policy.json beside mcp.json, and a file that does not validate is a configuration problem naming why', async () => {
    const home = await mkdtemp(path.join(tmpdir(), 'tsuka-policy-'));
    const mcpFile = path.join(home, 'mcp.json');
    expect(readPolicyConfig({ configured: undefined, section: undefined, mcpFile }, [])).toEqual({});
    await writeFile(path.join(home, 'policy.json'), JSON.stringify({ default: { approval: 'channel' } }));
    expect(readPolicyConfig({ configured: undefined, section: undefined, mcpFile }, []).policy).toEqual({ default: { approval: 'channel' } });
    await writeFile(path.join(home, 'bad.json'), JSON.stringify({ rules: [{ name: 'x', approval: { group: 'ops' } }], default: { approval: 'none' } }));
    const problems: string[] = [];
    const read = readPolicyConfig({ configured: 'bad.json', section: undefined, mcpFile }, problems);
    expect(read.policy).toBeUndefined();
    expect(problems.join('\n')).toMatch(/approval policy: .*bad\.json \/rules\/0\/approval: the group "ops" is not in "groups"/);
    const missing: string[] = [];
    readPolicyConfig({ configured: 'nowhere.json', section: undefined, mcpFile }, missing);
    expect(missing.join('\n')).toMatch(/TSUKA_POLICY_FILE names .*nowhere\.json, which does not exist/);
  });
});

describe('policyMayDecide', () => {
  const decider = { rule: 'infra', group: '"ops"', members: ['slack:U1', 'slack:U2', 'slack:U3'], required: 2 };
  it('lets members approve once each, never the requester nor a non-member (admins included); the requester may deny', () => {
    expect(policyMayDecide(decider, 'approve', { user: 'slack:U2', requester: 'slack:U1' })).toEqual({ ok: true });
    expect(policyMayDecide(decider, 'approve', { user: 'slack:U1', requester: 'slack:U1' }).ok).toBe(false);
    expect(policyMayDecide(decider, 'approve', { user: 'slack:UADMIN', requester: 'slack:U1' }).ok).toBe(false);
    expect(policyMayDecide(decider, 'approve', { user: 'slack:U2', requester: 'slack:U1', approvedBy: ['slack:U2'] }).ok).toBe(false);
    expect(policyMayDecide(decider, 'deny', { user: 'slack:U1', requester: 'slack:U1' })).toEqual({ ok: true });
    expect(policyMayDecide(decider, 'deny', { user: 'slack:U9', requester: 'slack:U1' }).ok).toBe(false);
    expect(policyMayDecide({ ...decider, members: [] }, 'approve', { user: 'slack:U2', requester: 'slack:U1' }).ok).toBe(false);
  });
  it('says on the card who may approve and the approvals so far', () => {
    const line = policyDecidesLine(decider, 'slack:U1', (user) => `<@${user.slice(6)}>`, ['slack:U2']);
    expect(line).toBe('Rule "infra": 2 approvals from "ops" (<@U2>, <@U3>); <@U1> can deny.\n1 of 2 approvals: <@U2>');
  });
});

describe('the card names the rule', () => {
  it('under a rule whose approval is "channel", the channel’s own line follows the rule’s name', async () => {
    const { describeRequest } = await import('../../../src/commands/approvals/approval-text.js');
    const surface = { mention: (user: string) => `<@${user.slice(6)}>` } as unknown as Parameters<typeof describeRequest>[1];
    const request = {
      id: '1',
      runId: 'r',
      toolCallId: 't',
      toolName: 'execute_command',
      riskLevel: 'DANGEROUS' as const,
      reason: 'unknown program',
      summary: 'execute_command git push',
      details: [],
      agentName: 'geordi',
      requesterId: 'slack:U1',
      allowForRun: false,
    };
    const text = describeRequest(request, surface, 'other', { ruleName: 'default' });
    expect(text).toMatch(/Rule "default" \(the channel's own rule\): Someone other than <@U1> must approve/);
  });
});
