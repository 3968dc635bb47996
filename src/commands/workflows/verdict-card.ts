/** The words and buttons of a /call verdict card (issue 28): question, options, positions and votes, synthesis, dissent. */
import type { CallPosition, CallVerdict } from '../../core/workflows/call-verdict.js';
import { VERDICT_ADOPT_ACTION, VERDICT_REOPEN_ACTION } from '../action-ids.js';
import type { Button } from '../chat-surface.js';

/** The synthesis shown on the card is cut here (the whole text is the moderator's message above it). */
const SYNTHESIS_MAX_CHARS = 1_500;
/** Kept free for the line an Adopt or Reopen adds to the card. */
const FOOTER_ROOM = 120;
const VOTE_ICONS: Record<string, string> = { APPROVE: '✅', CHANGE: '✏️', REJECT: '⛔' };

const clip = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`);

function positionLine(position: CallPosition): string {
  const vote = position.vote
    ? `${VOTE_ICONS[position.vote]} ${position.vote}${position.reason ? ` — ${position.reason}` : ''}`
    : '⚠️ no vote (degraded protocol)';
  return `• **${position.aiName}**: ${position.position} · ${vote}`;
}

/** The card's text, within `maxLength` (the surface's message limit): the synthesis gives way first. */
export function verdictCardText(verdict: CallVerdict, runId: string, maxLength = 3_900): string {
  const tally = verdict.tally.length > 0 ? verdict.tally.map((entry) => `${entry.count} ${entry.vote}`).join(' · ') : 'no votes';
  const dissent =
    verdict.dissent.length > 0
      ? verdict.dissent.map((position) => `${position.aiName} (${position.vote}${position.reason ? ` — ${position.reason}` : ''})`).join('; ')
      : 'none';
  const head = [
    `⚖️ **Verdict** — ${verdict.topic}`,
    '**Options argued:**',
    ...(verdict.options.length > 0 ? verdict.options.map((option) => `• ${option}`) : ['• (the moderator named none)']),
    `**Positions and votes** (${tally}):`,
    ...verdict.positions.map(positionLine),
    `**Decision proposed:** ${verdict.decision}${verdict.decisionGiven ? '' : ' (⚠️ the moderator wrote no DECISION: line; the topic stands in)'}`,
  ];
  const tail = [
    `**Dissent:** ${dissent}`,
    `Run \`${runId}\` · Adopt (whoever started the call, or an admin) records the decision in this channel's memory and, after approval, in docs/decisions/; Reopen runs one more round.`,
  ];
  const synthesisLabel = `**Synthesis** (by ${verdict.moderator}): `;
  // Room left for the synthesis (room for a footer an edit adds, too); the moderator's message above holds all of it.
  const room = maxLength - [...head, ...tail].join('\n').length - synthesisLabel.length - FOOTER_ROOM;
  const synthesis = clip(verdict.synthesis.replace(/\s*\n\s*/g, ' '), Math.max(40, Math.min(SYNTHESIS_MAX_CHARS, room))) || '(none)';
  return [...head, `${synthesisLabel}${synthesis}`, ...tail].join('\n');
}

export function verdictButtons(runId: string): Button[] {
  return [
    { actionId: VERDICT_ADOPT_ACTION, label: 'Adopt', style: 'success', value: runId },
    { actionId: VERDICT_REOPEN_ACTION, label: 'Reopen', style: 'secondary', value: runId },
  ];
}
