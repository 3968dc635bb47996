/** The words and buttons of a /call verdict card (issue 28): question, options, positions and votes, synthesis, dissent. */
import type { CallPosition, CallVerdict } from '../../core/workflows/call-verdict.js';
import { VERDICT_ADOPT_ACTION, VERDICT_REOPEN_ACTION } from '../action-ids.js';
import type { Button } from '../chat-surface.js';

/** The synthesis shown on the card is cut here (the whole text is the moderator's message above it). */
const SYNTHESIS_MAX_CHARS = 1_500;
const VOTE_ICONS: Record<string, string> = { APPROVE: '✅', CHANGE: '✏️', REJECT: '⛔' };

const clip = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`);

function positionLine(position: CallPosition): string {
  const vote = position.vote
    ? `${VOTE_ICONS[position.vote]} ${position.vote}${position.reason ? ` — ${position.reason}` : ''}`
    : '⚠️ no vote (degraded protocol)';
  return `• **${position.aiName}**: ${position.position} · ${vote}`;
}

export function verdictCardText(verdict: CallVerdict, runId: string): string {
  const tally = verdict.tally.length > 0 ? verdict.tally.map((entry) => `${entry.count} ${entry.vote}`).join(' · ') : 'no votes';
  const dissent =
    verdict.dissent.length > 0
      ? verdict.dissent.map((position) => `${position.aiName} (${position.vote}${position.reason ? ` — ${position.reason}` : ''})`).join('; ')
      : 'none';
  return [
    `⚖️ **Verdict** — ${verdict.topic}`,
    '**Options argued:**',
    ...(verdict.options.length > 0 ? verdict.options.map((option) => `• ${option}`) : ['• (the moderator named none)']),
    `**Positions and votes** (${tally}):`,
    ...verdict.positions.map(positionLine),
    `**Decision proposed:** ${verdict.decision}${verdict.decisionGiven ? '' : ' (⚠️ the moderator wrote no DECISION: line; the topic stands in)'}`,
    `**Synthesis** (by ${verdict.moderator}): ${clip(verdict.synthesis.replace(/\s*\n\s*/g, ' '), SYNTHESIS_MAX_CHARS) || '(none)'}`,
    `**Dissent:** ${dissent}`,
    `Run \`${runId}\` · Adopt (the person who started the call or an admin) records the decision in this channel's memory and writes it to docs/decisions/ after approval; Reopen runs one more round.`,
  ].join('\n');
}

export function verdictButtons(runId: string): Button[] {
  return [
    { actionId: VERDICT_ADOPT_ACTION, label: 'Adopt', style: 'success', value: runId },
    { actionId: VERDICT_REOPEN_ACTION, label: 'Reopen', style: 'secondary', value: runId },
  ];
}
