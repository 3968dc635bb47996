/**
 * The approval policy in force (issue 39): read at start (policy-config.ts) and again on
 * `/tsuka policy reload`. A reload that does not validate keeps the policy in force and says why
 * (fail closed: a typo never drops the rules).
 */
import { PolicyError, readPolicyFile } from '../../core/policy/policy-file.js';
import type { ApprovalPolicy } from '../../core/policy/policy-schema.js';
import type { PolicyConfig } from '../../config/policy-config.js';

export interface PolicySource {
  current(): ApprovalPolicy | undefined;
  /** Reads the file again; the reply to show. */
  reload(): string;
}

export function createPolicySource(config: PolicyConfig): PolicySource {
  let policy = config.policy;
  return {
    current: () => policy,
    reload() {
      if (!config.file) return 'The approval policy is the `policy` section of tsuka.config.json: restart TSUKA to read it again.';
      try {
        policy = readPolicyFile(config.file);
        return `Approval policy reloaded from ${config.file}: ${policy.rules?.length ?? 0} rules and the default.`;
      } catch (error) {
        if (!(error instanceof PolicyError)) throw error;
        return `The approval policy was not reloaded — the one read before stays in force:\n${error.problems.map((problem) => `• ${problem}`).join('\n')}`;
      }
    },
  };
}
