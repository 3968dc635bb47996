/** Reads and checks an approval policy: a schema check, then every group a rule names must exist. */
import { readFileSync } from 'node:fs';
import { ownValidator } from '../validation/own-validator.js';
import { POLICY_SCHEMA, type ApprovalPolicy, type PolicyApproval } from './policy-schema.js';

/** The problems of `value` as a policy (empty: it is one), each naming where and what to fix; `source` names the file. */
export function policyProblems(value: unknown, source: string): string[] {
  const validate = ownValidator<ApprovalPolicy>(POLICY_SCHEMA);
  if (!validate(value)) {
    return (validate.errors ?? []).map((error) => {
      const extra = error.keyword === 'additionalProperties' ? ` "${String((error.params as { additionalProperty?: string }).additionalProperty)}"` : '';
      return `${source} ${error.instancePath || '/'}${extra}: ${error.message ?? 'invalid'} — see docs/approval-policy.md.`;
    });
  }
  const problems: string[] = [];
  const names = new Set<string>();
  const check = (approval: PolicyApproval, where: string) => {
    if (typeof approval === 'object' && typeof approval.group === 'string' && !value.groups?.[approval.group]) {
      problems.push(`${source} ${where}: the group "${approval.group}" is not in "groups" — add it or name a group that is.`);
    }
  };
  value.rules?.forEach((rule, index) => {
    if (names.has(rule.name)) problems.push(`${source} /rules/${index}: the rule name "${rule.name}" is used twice — each rule needs its own name.`);
    names.add(rule.name);
    if (rule.command !== undefined && rule.tool !== undefined && rule.tool !== 'execute_command') {
      problems.push(`${source} /rules/${index}: "command" covers execute_command only, so "tool" must be left out or be "execute_command".`);
    }
    check(rule.approval, `/rules/${index}/approval`);
  });
  check(value.default.approval, '/default/approval');
  return problems;
}

export class PolicyError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`The approval policy is not valid:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'PolicyError';
    this.problems = problems;
  }
}

/** The policy in `value`, or a PolicyError listing every problem (fail closed: nothing half-read). */
export function parsePolicy(value: unknown, source: string): ApprovalPolicy {
  const problems = policyProblems(value, source);
  if (problems.length > 0) throw new PolicyError(problems);
  return value as ApprovalPolicy;
}

/** Reads the policy file at `file`. */
export function readPolicyFile(file: string): ApprovalPolicy {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new PolicyError([`${file} could not be read as JSON (${(error as Error).message}).`]);
  }
  return parsePolicy(parsed, file);
}
