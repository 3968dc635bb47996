/** The words of an approval prompt and of its decision banners (approval-flow.ts posts them). */
import { whoDecidesLine, type Approvers } from '../../core/scopes/approval-rule.js';
import type { PermissionRequest } from '../../core/safety/permission-port.js';
import type { ChatSurface } from '../chat-surface.js';
import { policyDecidesLine, type PolicyDecider } from '../../core/policy/policy-decider.js';
import { describeBindingProblem, type BindingProblem } from '../../core/store/approval-binding.js';

export const clock = (time: number): string => `${new Date(time).toISOString().slice(11, 16)} UTC`;

/** Shown instead of a decision when the stored approval was refused (approval-binding.ts says why). */
export const tamperedBanner = (problem: BindingProblem): string =>
  `⛔ Denied — the stored approval was changed outside TSUKA (${describeBindingProblem(problem)}); ask again.`;

/** Shown instead of a decision when the stored approval does not carry the bot's signature. */
export const TAMPERED_BANNER = tamperedBanner('signature');

/** Added to an approval's banner when a stop overtook it: the call did not run. */
export const STOPPED_BEFORE_RUN = '— ⏹ not run: the run was stopped first.';

/**
 * The banner of a decision read back from the (verified) store — decided elsewhere, or before the
 * prompt was recorded: every word comes from the signed record, none from a pub/sub message.
 */
export function decidedBanner(
  record: { status: string; decidedBy?: string; decidedAt?: number; tampered?: true; tamperedBecause?: BindingProblem },
  surface: ChatSurface,
  grant?: string,
): string {
  if (record.tampered) return tamperedBanner(record.tamperedBecause ?? 'signature');
  const by = record.decidedBy ? ` by ${surface.mention(record.decidedBy)}` : '';
  const at = record.decidedAt ? ` · ${clock(record.decidedAt)}` : '';
  if (record.status === 'approved') return `✅ Approved${by}${at}`;
  if (record.status === 'approved-for-run') return `✅ Approved ${grant ? `\`${grant}\` ` : ''}for this run${by}${at}`;
  if (record.status === 'denied') return `⛔ Denied${by}${at}`;
  return '⌛ Expired without a decision — denied.';
}

/** A preview line of a change (`+ added`, `- removed`, `@@ line 3 @@`, `… 40 more lines …`). */
const CHANGE_LINE = /^(?:[-+] |@@ |… \d+ more)/;

/**
 * The request's detail lines: plain ones quoted, runs of change lines in a ```diff block (coloured
 * on Discord and in the playground, monospace on Slack).
 */
function detailLines(details: string[]): string[] {
  const out: string[] = [];
  let change: string[] = [];
  const flush = () => {
    if (change.length > 0) out.push(['```diff', ...change.map((line) => line.replace(/```/g, '`\u200b``')), '```'].join('\n'));
    change = [];
  };
  for (const line of details) {
    if (CHANGE_LINE.test(line)) change.push(line);
    else {
      flush();
      out.push(`> ${line}`);
    }
  }
  flush();
  return out;
}

export function describeRequest(
  request: PermissionRequest,
  surface: ChatSurface,
  approvers: Approvers = 'requester',
  room: { admins?: readonly string[]; alone?: boolean; decider?: PolicyDecider; ruleName?: string } = {},
): string {
  const icon = request.riskLevel === 'DANGEROUS' ? '🛑' : '⚠️';
  const lines = [
    `${icon} **${request.agentName}** wants to run \`${request.toolName}\` (${request.riskLevel})`,
    `> ${request.summary}`,
    ...detailLines(request.details),
    `Why it asks: ${request.reason}`,
    ...(request.allowForRun && request.riskLevel === 'RESTRICTED'
      ? [
          `"Approve for this run" covers later ${request.grantScope === undefined ? `\`${request.toolName}\` calls` : `\`${request.grantScope}\` commands`} in this run, nothing else.`,
        ]
      : []),
    room.decider
      ? policyDecidesLine(room.decider, request.requesterId, (user) => surface.mention(user))
      : `${room.ruleName ? `Rule "${room.ruleName}" (the channel's own rule): ` : ''}${whoDecidesLine(approvers, request.requesterId, (user) => surface.mention(user), room)}`,
  ];
  return lines.join('\n');
}
