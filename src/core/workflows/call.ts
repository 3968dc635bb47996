/**
 * /call: a debate between characters (design §2.4, issue 28). Rounds of turns, each speaker seeing
 * the transcript so far, no tools; in the last round each ends with a `POSITION:` and a `VOTE:`
 * line. Then a moderator who does not argue — the first supervisor-role participant, else TSUKA
 * itself with a neutral prompt — names the options argued, the decision and the synthesis, and the
 * run ends with a verdict (`call-verdict.ts`). A reopened call continues a stored transcript.
 */
import type { Character, Roster } from '../data/types.js';
import { buildVerdict, type CallVerdict } from './call-verdict.js';
import type { WorkflowIo } from './workflow-io.js';
import { WorkflowTurnError } from './workflow-turn-error.js';

export const DEFAULT_CALL_ROUNDS = 2;
export const MAX_CALL_ROUNDS = 10;
const SUPERVISOR_ROLE = 'supervisor';
/** The moderator's tool for the decision, its options and the votes. */
export const RECORD_DECISION_TOOL = 'record_decision';
/** The role TSUKA moderates with when no participant is a supervisor (the roster's general assistant). */
const MODERATOR_FALLBACK_ROLE = 'assistant';

/** TSUKA as moderator: not one of the debaters, no side of its own. */
export const NEUTRAL_MODERATOR_PROMPT = [
  '## You moderate this debate',
  'You are TSUKA, the neutral moderator. You did not take part and you take no side: report what the participants argued and how they voted, fairly, including the minority.',
].join('\n');

export interface CallOptions {
  io: WorkflowIo;
  participants: Character[];
  topic: string;
  /** The last round's number (a reopened call: the rounds before it plus one). */
  rounds: number;
  /** The first round to run (default 1); a reopened call starts after the stored ones. */
  firstRound?: number;
  /** What was said before (a reopened call). */
  previous?: CallTranscriptEntry[];
  /** Where TSUKA's moderating role comes from when no participant is a supervisor. */
  roster: Pick<Roster, 'roles'>;
}

export interface CallTranscriptEntry {
  speaker: Character;
  text: string;
}

export interface CallOutcome {
  status: 'completed' | 'stopped';
  transcript: CallTranscriptEntry[];
  moderator: Character;
  synthesis?: string;
  verdict?: CallVerdict;
}

/** TSUKA itself as a character, for the moderator's turn (the bot's own voice, a neutral role). */
export function tsukaModerator(roster: Pick<Roster, 'roles'>, participants: readonly Character[]): Character {
  const role = roster.roles.has(MODERATOR_FALLBACK_ROLE) ? MODERATOR_FALLBACK_ROLE : participants[0]!.activeRole;
  return {
    name: 'tsuka',
    aiName: 'TSUKA',
    displayName: 'TSUKA',
    description: 'The neutral moderator of this debate.',
    roles: [role],
    activeRole: role,
    trait: '',
    avatar: ':scales:',
  };
}

/** The first supervisor-role participant, else TSUKA itself. */
export function moderatorOf(participants: readonly Character[], roster: Pick<Roster, 'roles'>): Character {
  return participants.find((participant) => participant.roles.includes(SUPERVISOR_ROLE)) ?? tsukaModerator(roster, participants);
}

function transcriptText(transcript: readonly CallTranscriptEntry[]): string {
  if (transcript.length === 0) return '(nobody has spoken yet — you open the debate)';
  return transcript.map((entry) => `[${entry.speaker.aiName}]: "${entry.text.trim()}"`).join('\n\n');
}

function turnPrompt(options: CallOptions, speaker: Character, round: number, transcript: readonly CallTranscriptEntry[]): string {
  const others = options.participants.filter((participant) => participant !== speaker).map((participant) => participant.aiName);
  const last = round === options.rounds;
  return [
    `You are ${speaker.aiName} in a debate with ${others.join(', ')}. Topic: ${options.topic}`,
    '',
    'Transcript so far:',
    transcriptText(transcript),
    '',
    `Round ${round} of ${options.rounds}. Give your view in a few short paragraphs; answer the points the others made. No tools: argue from what you know.`,
    ...(last
      ? [
          'This is the last round: end with two lines,',
          '`POSITION: <your position in one sentence>`',
          '`VOTE: APPROVE|CHANGE|REJECT — <why>` (APPROVE: for what the topic proposes; CHANGE: for it with changes; REJECT: against it).',
        ]
      : []),
  ].join('\n');
}

function synthesisPrompt(options: CallOptions, moderator: Character, transcript: readonly CallTranscriptEntry[]): string {
  return [
    `You moderated a debate between ${options.participants.map((participant) => participant.aiName).join(', ')}. Topic: ${options.topic}`,
    '',
    'Full transcript:',
    transcriptText(transcript),
    '',
    `As ${moderator.aiName}, write the closing synthesis. First call record_decision with the decision you recommend (one line — it becomes the title of the decision record), the options the participants argued and each participant's vote.`,
    'Then write the synthesis in this form (if you cannot call the tool, these lines are the record):',
    'OPTIONS:',
    '- <each option the participants argued, one line each>',
    'DECISION: <the decision you recommend, in one line>',
    'Then, in a few short paragraphs: where the participants agree, where they differ, and why this decision.',
  ].join('\n');
}

async function runRounds(options: CallOptions, transcript: CallTranscriptEntry[]): Promise<'done' | 'stopped'> {
  const { io, participants, rounds } = options;
  for (let round = options.firstRound ?? 1; round <= rounds; round++) {
    if (io.signal.aborted) return 'stopped';
    await io.announce(`— Round ${round} of ${rounds} —`);
    for (const speaker of participants) {
      if (io.signal.aborted) return 'stopped';
      io.activity(`round ${round}/${rounds} · ${speaker.aiName} is speaking`);
      const outcome = await io.runMember({ character: speaker, prompt: turnPrompt(options, speaker, round, transcript), allowTools: false });
      if (outcome.finishReason === 'aborted' || io.signal.aborted) return 'stopped';
      if (outcome.finishReason === 'error') throw new WorkflowTurnError(speaker.aiName, outcome.error?.message ?? 'the model failed', { cause: outcome.error });
      if (outcome.text.trim() !== '') transcript.push({ speaker, text: outcome.text });
    }
  }
  return 'done';
}

export async function runCall(options: CallOptions): Promise<CallOutcome> {
  const { io, participants } = options;
  const transcript: CallTranscriptEntry[] = [...(options.previous ?? [])];
  const moderator = moderatorOf(participants, options.roster);
  const stopped = (): CallOutcome => ({ status: 'stopped', transcript, moderator });
  if ((await runRounds(options, transcript)) === 'stopped' || io.signal.aborted) return stopped();
  await io.announce(`— Synthesis by ${moderator.aiName} —`);
  io.activity(`synthesis · ${moderator.aiName}`);
  const neutral = !participants.some((participant) => participant.name === moderator.name);
  const synthesis = await io.runMember({
    character: moderator,
    prompt: synthesisPrompt(options, moderator, transcript),
    // The moderator's one tool: the decision is recorded by a call first, read from its text only without one (issue 35).
    allowTools: true,
    onlyTools: [RECORD_DECISION_TOOL],
    ...(neutral ? { extraSystemPrompt: NEUTRAL_MODERATOR_PROMPT } : {}),
  });
  if (synthesis.finishReason === 'aborted' || io.signal.aborted) return stopped();
  if (synthesis.finishReason === 'error')
    throw new WorkflowTurnError(moderator.aiName, synthesis.error?.message ?? 'the model failed', { cause: synthesis.error });
  const lastTurns = new Map<string, string>();
  for (const entry of transcript) lastTurns.set(entry.speaker.name, entry.text);
  const verdict = buildVerdict({
    topic: options.topic,
    moderator: moderator.aiName,
    participants,
    lastTurns,
    moderatorText: synthesis.text,
    ...(synthesis.decision ? { recorded: synthesis.decision } : {}),
  });
  return { status: 'completed', transcript, moderator, synthesis: synthesis.text, verdict };
}
