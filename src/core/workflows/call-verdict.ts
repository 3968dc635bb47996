/**
 * The verdict of a /call (issue 28): what each participant stood for and voted in its last turn
 * (the `POSITION:` and `VOTE: APPROVE|CHANGE|REJECT` lines of the text protocol), what the
 * moderator wrote (`OPTIONS:` list, `DECISION:` line, the synthesis), the tally and the dissent.
 */
import { parseVoteLine } from './protocol.js';
import type { RecordedDecision, Vote } from './workflow-services.js';

/** Where a verdict's decision came from: the moderator's `record_decision` call, its text, or nothing (issue 35). */
export type DecisionSource = 'tool' | 'text' | 'default' | 'edited';
/** The clearly marked default when the moderator stated no decision: never the topic. */
export const NO_DECISION_STATED = 'no decision was stated';
/** `DECISION: x`, `**Decision:** x`, `- Decision — x`, `Final decision: x`, `Decision proposed: x`, `Decision is x`. */
const DECISION_LINE = /^(?:[-•]\s*|\d+[.)]\s*)?(?:final\s+|recommended\s+|proposed\s+)?decision(?:\s+proposed|\s+recommended)?\s*(?:[:=\-—–]+|\bis\b)\s*(.+)$/i;

/** Longest decision line kept (it titles the decision record). */
export const DECISION_MAX_CHARS = 200;
const OPTION_MAX_CHARS = 200;
const POSITION_MAX_CHARS = 300;
const DECORATION = /[*_`>#]/g;

export interface CallPosition {
  /** The participant's file name (`geordi`) and display name (`Geordi`). */
  name: string;
  aiName: string;
  /** One sentence: its `POSITION:` line, else the first sentence of its last turn. */
  position: string;
  vote?: Vote;
  reason?: string;
  /** Set when the vote is the moderator's record (`record_decision`), the participant having written no VOTE: line. */
  voteBy?: 'moderator';
}

export interface CallVerdict {
  topic: string;
  /** The moderator's display name (a supervisor participant, or TSUKA). */
  moderator: string;
  options: string[];
  positions: CallPosition[];
  /** The moderator's decision ({@link NO_DECISION_STATED} when it stated none — never the topic). */
  decision: string;
  /** Whether `decision` came from the moderator (false: nothing was stated, Adopt is not offered). */
  decisionGiven: boolean;
  /** Which path gave the decision (absent on verdicts stored before issue 35: read `decisionGiven`). */
  decisionSource?: DecisionSource;
  /** Who stated the decision in the thread after a verdict without one (`edited`), as chat shows them. */
  editedBy?: string;
  /** The moderator's text without its OPTIONS and DECISION lines. */
  synthesis: string;
  /** Votes counted, most first (`APPROVE` 2, `REJECT` 1). */
  tally: { vote: Vote; count: number }[];
  /** Those whose vote differs from the prevailing one (ties go to APPROVE, then CHANGE). */
  dissent: CallPosition[];
}

const VOTE_ORDER: readonly Vote[] = ['APPROVE', 'CHANGE', 'REJECT'];

const clip = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`);
const clean = (line: string): string => line.replace(DECORATION, ' ').replace(/\s+/g, ' ').trim();

/** The last `POSITION: …` line of a turn. */
export function parsePositionLine(text: string): string | undefined {
  let found: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    const match = /^\s*position\s*[:=]\s*(.+)$/i.exec(clean(line));
    if (match?.[1]) found = match[1].trim();
  }
  return found;
}

/** A participant's position and vote from its last turn. */
export function positionOf(speaker: { name: string; aiName: string }, lastTurn: string | undefined): CallPosition {
  if (lastTurn === undefined) return { name: speaker.name, aiName: speaker.aiName, position: '(did not speak)' };
  const vote = parseVoteLine(lastTurn);
  const stated = parsePositionLine(lastTurn);
  const firstSentence = clean(lastTurn.split(/\r?\n/).find((line) => clean(line) !== '' && !/^\s*(vote|position|status)\s*[:=]/i.test(clean(line))) ?? '');
  const position = clip(stated ?? /^.*?[.!?](?=\s|$)/.exec(firstSentence)?.[0] ?? firstSentence, POSITION_MAX_CHARS);
  return {
    name: speaker.name,
    aiName: speaker.aiName,
    position: position || '(no position stated)',
    ...(vote ? { vote: vote.vote, ...(vote.reason ? { reason: clip(vote.reason, POSITION_MAX_CHARS) } : {}) } : {}),
  };
}

/** The moderator's `OPTIONS:` bullets, `DECISION:` line and the rest of the text (the synthesis). */
export function parseModeratorText(text: string): { options: string[]; decision?: string; synthesis: string } {
  const options: string[] = [];
  let decision: string | undefined;
  const rest: string[] = [];
  let inOptions = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = clean(raw);
    const decisionMatch = DECISION_LINE.exec(line);
    if (decisionMatch?.[1]?.trim()) {
      decision = clip(decisionMatch[1].trim(), DECISION_MAX_CHARS);
      inOptions = false;
      continue;
    }
    const optionsMatch = /^options(?: argued)?\s*[:=]\s*(.*)$/i.exec(line);
    if (optionsMatch) {
      inOptions = true;
      if (optionsMatch[1]) options.push(...optionsMatch[1].split(/\s*;\s*/).filter(Boolean));
      continue;
    }
    if (inOptions) {
      const bullet = /^\s*(?:[-•]|\d+[.)])\s+(.+)$/.exec(raw.replace(/[*_`]/g, ''));
      if (bullet?.[1]) {
        options.push(clip(bullet[1].trim(), OPTION_MAX_CHARS));
        continue;
      }
      if (line === '') continue;
      inOptions = false;
    }
    rest.push(raw);
  }
  return { options, ...(decision ? { decision } : {}), synthesis: rest.join('\n').trim() };
}

/** The tally (most votes first) and who dissents from the prevailing vote. */
export function tallyVotes(positions: readonly CallPosition[]): Pick<CallVerdict, 'tally' | 'dissent'> {
  const counts = new Map<Vote, number>();
  for (const position of positions) if (position.vote) counts.set(position.vote, (counts.get(position.vote) ?? 0) + 1);
  const tally = VOTE_ORDER.filter((vote) => counts.has(vote))
    .map((vote) => ({ vote, count: counts.get(vote)! }))
    .sort((a, b) => b.count - a.count || VOTE_ORDER.indexOf(a.vote) - VOTE_ORDER.indexOf(b.vote));
  const prevailing = tally[0]?.vote;
  return { tally, dissent: prevailing ? positions.filter((position) => position.vote !== undefined && position.vote !== prevailing) : [] };
}

/** A participant without a VOTE: line of its own gets the vote the moderator recorded for it. */
function withRecordedVote(position: CallPosition, recorded: RecordedDecision | undefined): CallPosition {
  if (position.vote || !recorded) return position;
  const key = (name: string) => name.trim().replace(/^@/, '').toLowerCase();
  const names = new Set([key(position.name), key(position.aiName)]);
  const entry = recorded.votes.find((vote) => names.has(key(vote.participant)));
  if (!entry) return position;
  return { ...position, vote: entry.vote, ...(entry.reason ? { reason: clip(entry.reason, POSITION_MAX_CHARS) } : {}), voteBy: 'moderator' };
}

/**
 * The seeds' rule (issue 35): the moderator's `record_decision` call first, then its text
 * (a tolerant DECISION line), then a clearly marked default — never the topic.
 */
export function buildVerdict(input: {
  topic: string;
  moderator: string;
  participants: readonly { name: string; aiName: string }[];
  /** Each participant's last turn, by file name. */
  lastTurns: ReadonlyMap<string, string>;
  moderatorText: string;
  /** What the moderator recorded with `record_decision`, if it called it. */
  recorded?: RecordedDecision;
}): CallVerdict {
  const { recorded } = input;
  const positions = input.participants.map((participant) => withRecordedVote(positionOf(participant, input.lastTurns.get(participant.name)), recorded));
  const parsed = parseModeratorText(input.moderatorText);
  const source: DecisionSource = recorded ? 'tool' : parsed.decision !== undefined ? 'text' : 'default';
  const decision = recorded ? clip(clean(recorded.decision), DECISION_MAX_CHARS) : (parsed.decision ?? NO_DECISION_STATED);
  const options = recorded && recorded.options.length > 0 ? recorded.options.map((option) => clip(option, OPTION_MAX_CHARS)) : parsed.options;
  return {
    topic: input.topic,
    moderator: input.moderator,
    options,
    positions,
    decision,
    decisionGiven: source !== 'default',
    decisionSource: source,
    synthesis: parsed.synthesis,
    ...tallyVotes(positions),
  };
}
