/**
 * Who decides a call under a policy rule with a group (issue 39), fixed when it is asked and
 * stored (signed) with the approval: the group's members as they were then, and how many of them
 * must approve. The requester never counts; an admin decides only as a member. Anyone who may
 * approve may deny, and so may the requester. A group that could not be read has no members: nobody
 * can approve (fail closed).
 */
import type { ApprovalVerdict } from '../scopes/approval-rule.js';

export interface PolicyDecider {
  /** The rule's name ("default" for the default). */
  rule: string;
  /** The group in words, for the card ("ops" (the Slack user group S1)). */
  group: string;
  members: string[];
  required: number;
}

export function policyMayDecide(
  decider: PolicyDecider,
  decision: 'approve' | 'deny',
  who: { user: string; requester?: string; approvedBy?: readonly string[] },
): ApprovalVerdict {
  const isRequester = who.requester !== undefined && who.user === who.requester;
  const member = decider.members.includes(who.user);
  if (decision === 'deny') {
    return member || isRequester
      ? { ok: true }
      : { ok: false, why: `Only a member of ${decider.group} (rule "${decider.rule}") or the requester can deny this.` };
  }
  if (isRequester)
    return {
      ok: false,
      why: `You asked for this: ${approvalsWord(decider.required)} from ${decider.group} other than you must approve it (rule "${decider.rule}"). You can still deny it.`,
    };
  if (!member) return { ok: false, why: `Only members of ${decider.group} can approve this (rule "${decider.rule}").` };
  if (who.approvedBy?.includes(who.user))
    return { ok: false, why: `You already approved this: it needs ${approvalsWord(decider.required)} from different members of ${decider.group}.` };
  return { ok: true };
}

const approvalsWord = (count: number) => (count === 1 ? '1 approval' : `${count} approvals`);

/** The card's line: the rule, who may decide, and (N-of-M) the approvals so far. */
export function policyDecidesLine(
  decider: PolicyDecider,
  requester: string | undefined,
  mention: (user: string) => string,
  approvedBy: readonly string[] = [],
): string {
  const asker = requester ? mention(requester) : 'the requester';
  const eligible = decider.members.filter((member) => member !== requester);
  const who = eligible.length > 0 ? eligible.map(mention).join(', ') : 'nobody — the group has no other members, so it cannot be approved';
  const lines = [`Rule "${decider.rule}": ${approvalsWord(decider.required)} from ${decider.group} (${who}); ${asker} can deny.`];
  if (approvedBy.length > 0) lines.push(`${approvedBy.length} of ${decider.required} approvals: ${approvedBy.map(mention).join(', ')}`);
  return lines.join('\n');
}
