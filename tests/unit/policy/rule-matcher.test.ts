import { describe, expect, it } from 'vitest';
import { explainCall } from '../../../src/core/policy/explain.js';
import { parsePolicy, PolicyError, policyProblems } from '../../../src/core/policy/policy-file.js';
import { globPattern, matchRule } from '../../../src/core/policy/rule-matcher.js';

const policy = parsePolicy(
  {
    groups: { ops: { slackUsergroup: 'S0OPS' }, leads: { members: ['slack:U1', 'slack:U2'] } },
    rules: [
      { name: 'infra-kubectl', workspace: 'slack:T1', command: 'kubectl delete *', approval: { group: 'ops', required: 2 } },
      { name: 'status-ok', workspace: 'slack:T1/C9', command: 'git status*', approval: 'none' },
      { name: 'writes', tool: 'write_*', approval: { group: 'leads' } },
    ],
    default: { approval: 'channel' },
  },
  'policy.json',
);

describe('matchRule', () => {
  it('takes the first rule whose workspace and command glob match', () => {
    const rule = matchRule(policy, { channel: 'slack:T1/C1', toolName: 'execute_command', command: 'kubectl   delete pod web-1' });
    expect(rule).toEqual({ name: 'infra-kubectl', approval: { group: { slackUsergroup: 'S0OPS' }, groupName: 'ops', required: 2 } });
  });

  it('falls to "default" in another workspace, for another command, or for another tool with the same argument', () => {
    expect(matchRule(policy, { channel: 'slack:T2/C1', toolName: 'execute_command', command: 'kubectl delete pod x' }).name).toBe('default');
    expect(matchRule(policy, { channel: 'slack:T1/C1', toolName: 'execute_command', command: 'kubectl get pods' }).name).toBe('default');
    expect(matchRule(policy, { channel: 'slack:T1/C1', toolName: 'read_file', command: 'kubectl delete pod x' }).name).toBe('default');
    // "slack:T1" must not hold a team whose id only starts the same way.
    expect(matchRule(policy, { channel: 'slack:T10/C1', toolName: 'execute_command', command: 'kubectl delete pod x' }).name).toBe('default');
  });

  it('narrows a rule to one channel, and matches other tools by name', () => {
    expect(matchRule(policy, { channel: 'slack:T1/C9', toolName: 'execute_command', command: 'git status -s' }).approval).toBe('none');
    expect(matchRule(policy, { channel: 'slack:T1/C1', toolName: 'execute_command', command: 'git status -s' }).name).toBe('default');
    expect(matchRule(policy, { channel: 'discord:5/6', toolName: 'write_file' }).name).toBe('writes');
  });

  it('treats glob characters only as globs', () => {
    expect(globPattern('rm -rf (x)*').test('rm -rf (x)/tmp')).toBe(true);
    expect(globPattern('a.b').test('axb')).toBe(false);
  });
});

describe('policy validation (fail closed)', () => {
  it('refuses a policy with an unknown group, a reused name, a rule named default or a bad group id, naming each', () => {
    const problems = policyProblems(
      {
        rules: [
          { name: 'a', approval: { group: 'nobody' } },
          { name: 'a', approval: 'none' },
        ],
        default: { approval: 'none' },
      },
      'policy.json',
    );
    expect(problems.join('\n')).toMatch(/group "nobody" is not in "groups"/);
    expect(problems.join('\n')).toMatch(/rule name "a" is used twice/);
    expect(policyProblems({ rules: [{ name: 'default', approval: 'none' }], default: { approval: 'none' } }, 'p')).not.toEqual([]);
    expect(policyProblems({ groups: { g: { slackUsergroup: 'not-an-id' } }, default: { approval: 'none' } }, 'p')).not.toEqual([]);
    expect(() => parsePolicy({ rules: [] }, 'policy.json')).toThrow(PolicyError);
  });
});

describe('explainCall', () => {
  it('names the rule ("default" for the default) and who may decide', () => {
    expect(explainCall(policy, { channel: 'slack:T1/C1', toolName: 'execute_command', command: 'kubectl delete ns x' })).toBe(
      'rule: infra-kubectl\nwho may decide: 2 approvals from "ops" (the Slack user group S0OPS), never the requester\n',
    );
    expect(explainCall(policy, { channel: 'slack:T1/C9', toolName: 'execute_command', command: 'git status' })).toMatch(
      /^rule: status-ok\nwho may decide: no approval/,
    );
    expect(explainCall(policy, { channel: 'slack:T1/C1', toolName: 'execute_command', command: 'ls' })).toMatch(
      /^rule: default\nwho may decide: the channel's own rule/,
    );
  });
});
