/** `tsuka policy explain`: the rule a call would meet and who may decide, in words. */
import type { ApprovalPolicy, PolicyGroup } from './policy-schema.js';
import { matchRule, type MatchedApproval, type PolicyCall } from './rule-matcher.js';

/** A group in words: `the Slack user group S1`, `members slack:U1, slack:U2`. */
export function describeGroup(group: PolicyGroup, name?: string): string {
  const what =
    'slackUsergroup' in group
      ? `the Slack user group ${group.slackUsergroup}`
      : 'discordRole' in group
        ? `the Discord role ${group.discordRole}`
        : `members ${group.members.join(', ')}`;
  return name ? `"${name}" (${what})` : what;
}

/** Who decides under `approval`, in words. */
export function describeApproval(approval: MatchedApproval): string {
  if (approval === 'none') return 'no approval: the call runs without asking';
  if (approval === 'channel') return "the channel's own rule (dangerousApproval: other | admin | requester)";
  const count = approval.required === 1 ? '1 approval' : `${approval.required} approvals`;
  return `${count} from ${describeGroup(approval.group, approval.groupName)}, never the requester`;
}

/** Two lines: `rule: <name>` and `who may decide: …`. */
export function explainCall(policy: ApprovalPolicy, call: PolicyCall): string {
  const rule = matchRule(policy, call);
  return `rule: ${rule.name}\nwho may decide: ${describeApproval(rule.approval)}\n`;
}
