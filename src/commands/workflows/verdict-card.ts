/** The words and buttons of a /call verdict card (issue 28): question, options, positions and votes, synthesis, dissent. */
import { NO_DECISION_STATED, type CallPosition, type CallVerdict } from '../../core/workflows/call-verdict.js';
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
    ? `${VOTE_ICONS[position.vote]} ${position.vote}${position.reason ? ` — ${position.reason}` : ''}${position.voteBy === 'moderator' ? ' (as the moderator recorded it)' : ''}`
    : '⚠️ no vote (degraded protocol)';
  return `• **${position.aiName}**: ${position.position} · ${vote}`;
}

/** Where the decision came from (issue 35): the moderator's tool call, its text, or nothing at all. */
export function decisionSourceOf(verdict: Pick<CallVerdict, 'decisionGiven' | 'decisionSource'>): NonNullable<CallVerdict['decisionSource']> {
  return verdict.decisionSource ?? (verdict.decisionGiven ? 'text' : 'default');
}

function decisionLine(verdict: CallVerdict): string {
  switch (decisionSourceOf(verdict)) {
    case 'tool':
      return `**Decision proposed:** ${verdict.decision} _(recorded by ${verdict.moderator} with record_decision)_`;
    case 'text':
      return `**Decision proposed:** ${verdict.decision} _(read from ${verdict.moderator}'s text: it did not call record_decision)_`;
    case 'edited':
      return `**Decision proposed:** ${verdict.decision} _(stated in the thread by ${verdict.editedBy ?? 'the person who started the call'})_`;
    default:
      return `**Decision:** ⚠️ ${NO_DECISION_STATED} (${verdict.moderator} neither called record_decision nor wrote a DECISION: line; the question is not a decision)`;
  }
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
    // No options named: the line goes (a placeholder read as if the moderator had failed; the positions say it all).
    ...(verdict.options.length > 0 ? ['**Options argued:**', ...verdict.options.map((option) => `• ${option}`)] : []),
    `**Positions and votes** (${tally}):`,
    ...verdict.positions.map(positionLine),
    decisionLine(verdict),
  ];
  const tail = [
    `**Dissent:** ${dissent}`,
    verdict.decisionGiven
      ? `Run \`${runId}\` · Adopt (whoever started the call, or an admin) records the decision in this channel's memory and, after approval, in docs/decisions/; Reopen runs one more round.`
      : `Run \`${runId}\` · Nothing to adopt: no decision was stated. Whoever started the call (or an admin) may reply in this thread with \`DECISION: <the decision>\` to state it, then Adopt; Reopen runs one more round and asks the moderator again.`,
  ];
  const synthesisLabel = `**Synthesis** (by ${verdict.moderator}): `;
  // Room left for the synthesis (room for a footer an edit adds, too); the moderator's message above holds all of it.
  const room = maxLength - [...head, ...tail].join('\n').length - synthesisLabel.length - FOOTER_ROOM;
  const synthesis = clip(verdict.synthesis.replace(/\s*\n\s*/g, ' '), Math.max(40, Math.min(SYNTHESIS_MAX_CHARS, room))) || '(none)';
  return [...head, `${synthesisLabel}${synthesis}`, ...tail].join('\n');
}

/** Adopt only for a stated decision (issue 35): without one, Reopen (or a `DECISION:` reply in the thread). */
export function verdictButtons(runId: string, verdict?: Pick<CallVerdict, 'decisionGiven'>): Button[] {
  const reopen: Button = { actionId: VERDICT_REOPEN_ACTION, label: 'Reopen', style: 'secondary', value: runId };
  if (verdict && !verdict.decisionGiven) return [reopen];
  return [{ actionId: VERDICT_ADOPT_ACTION, label: 'Adopt', style: 'success', value: runId }, reopen];
}
