/**
 * Who decides one call that asks (approval-flow.ts): the approval policy's rule when there is a
 * policy (issue 39), else — and under a rule whose approval is "channel" — the channel's own rule
 * for DANGEROUS calls. A group is read when the call asks; a group that cannot be read has no
 * members (nobody can approve it: fail closed).
 */
import type { Logger } from '../../core/logger.js';
import type { PolicyDecider } from '../../core/policy/policy-decider.js';
import { describeGroup } from '../../core/policy/explain.js';
import type { ApprovalPolicy, PolicyGroup } from '../../core/policy/policy-schema.js';
import { matchRule } from '../../core/policy/rule-matcher.js';
import type { PermissionRequest } from '../../core/safety/permission-port.js';
import type { DangerousRule } from '../../core/scopes/approval-rule.js';
import type { ChatSurface, ThreadRef } from '../chat-surface.js';

/** What a call needs: nothing (the rule says "none"), or its deciders. */
export type CallDeciders = { kind: 'none'; rule: string } | { kind: 'ask'; rule: DangerousRule; decider?: PolicyDecider; ruleName?: string };

export interface CallDecidersOptions {
  logger: Logger;
  policy?: () => ApprovalPolicy | undefined;
  dangerousApprovers?: (context: { surface: ChatSurface; thread: ThreadRef }) => Promise<DangerousRule>;
}

/** The channel's rule for DANGEROUS calls; a failure to tell falls back to the strictest sensible rule. */
async function channelRule(options: CallDecidersOptions, request: PermissionRequest, surface: ChatSurface, thread: ThreadRef): Promise<DangerousRule> {
  if (request.riskLevel !== 'DANGEROUS' || !options.dangerousApprovers) return { approvers: 'requester', alone: false };
  return options.dangerousApprovers({ surface, thread }).catch((error: unknown) => {
    options.logger.warn('could not tell who may approve in this channel: someone other than the requester must', { error });
    return { approvers: 'other' as const, alone: false };
  });
}

async function groupMembers(options: CallDecidersOptions, group: PolicyGroup, surface: ChatSurface, channel: string): Promise<string[]> {
  if ('members' in group) return [...group.members];
  if (!surface.groupMembers) return [];
  return surface.groupMembers(group, channel).catch((error: unknown) => {
    options.logger.warn('could not read the members of an approval group: nobody of it can approve', { group, error });
    return [];
  });
}

const commandOf = (request: PermissionRequest): string | undefined => {
  const args = request.arguments as { command?: unknown } | undefined;
  return typeof args?.command === 'string' ? args.command : undefined;
};

export async function callDeciders(options: CallDecidersOptions, request: PermissionRequest, surface: ChatSurface, thread: ThreadRef): Promise<CallDeciders> {
  const policy = options.policy?.();
  if (!policy) return { kind: 'ask', rule: await channelRule(options, request, surface, thread) };
  const channel = surface.channelOf(thread);
  const command = commandOf(request);
  const matched = matchRule(policy, { channel, toolName: request.toolName, ...(command !== undefined ? { command } : {}) });
  if (matched.approval === 'none') return { kind: 'none', rule: matched.name };
  if (matched.approval === 'channel') return { kind: 'ask', rule: await channelRule(options, request, surface, thread), ruleName: matched.name };
  const { group, groupName, required } = matched.approval;
  const members = await groupMembers(options, group, surface, channel);
  // `approvers` stays for records read by earlier versions: someone other than the requester.
  return {
    kind: 'ask',
    rule: { approvers: 'other', alone: false },
    decider: { rule: matched.name, group: describeGroup(group, groupName), members, required },
  };
}
