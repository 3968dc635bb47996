/**
 * Which rule of the approval policy a call meets: the first rule, in the file's order, whose
 * workspace holds the call's channel and whose command or tool glob matches; else "default".
 */
import type { ApprovalPolicy, PolicyApproval, PolicyGroup } from './policy-schema.js';

/** The call as the rule sees it. */
export interface PolicyCall {
  /** The channel (`slack:T1/C1`, `discord:<guild>/<channel>`). */
  channel: string;
  toolName: string;
  /** execute_command's command line. */
  command?: string;
}

/** What the matched rule asks for; a group is resolved to its definition. */
export type MatchedApproval = 'none' | 'channel' | { group: PolicyGroup; groupName?: string; required: number };

export interface MatchedRule {
  /** The rule's name, or "default". */
  name: string;
  approval: MatchedApproval;
}

const EXECUTE_COMMAND = 'execute_command';

/** A glob (`*` any characters, `?` one) as an anchored regular expression. */
export function globPattern(glob: string): RegExp {
  const body = glob
    .trim()
    .split(/\s+/)
    .join(' ')
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`, 's');
}

/** Whether `channel` lies in `workspace` (`slack:T1` holds `slack:T1/C1`; `slack:T1/C1` holds only itself and its threads). */
export function inWorkspace(workspace: string | undefined, channel: string): boolean {
  if (workspace === undefined) return true;
  return channel === workspace || channel.startsWith(`${workspace}/`);
}

function resolved(policy: ApprovalPolicy, approval: PolicyApproval): MatchedApproval {
  if (typeof approval === 'string') return approval;
  const required = approval.required ?? 1;
  if (typeof approval.group !== 'string') return { group: approval.group, required };
  // parsePolicy refused unknown group names; one that still is unknown has no members (it denies).
  return { group: policy.groups?.[approval.group] ?? { members: [] }, groupName: approval.group, required };
}

export function matchRule(policy: ApprovalPolicy, call: PolicyCall): MatchedRule {
  const command = call.command?.trim().split(/\s+/).join(' ');
  for (const rule of policy.rules ?? []) {
    if (!inWorkspace(rule.workspace, call.channel)) continue;
    if (rule.command !== undefined && (call.toolName !== EXECUTE_COMMAND || command === undefined || !globPattern(rule.command).test(command))) continue;
    if (rule.tool !== undefined && !globPattern(rule.tool).test(call.toolName)) continue;
    return { name: rule.name, approval: resolved(policy, rule.approval) };
  }
  return { name: 'default', approval: resolved(policy, policy.default.approval) };
}
