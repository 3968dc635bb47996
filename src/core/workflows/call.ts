/**
 * /call: a debate between characters (design §2.4). Rounds of turns, each speaker seeing the
 * transcript so far, no tools, then a closing synthesis by the moderator: the first participant
 * with the supervisor role, else the last speaker.
 */
import type { Character } from '../data/types.js';
import type { WorkflowIo } from './workflow-io.js';
import { WorkflowTurnError } from './workflow-turn-error.js';

export const DEFAULT_CALL_ROUNDS = 2;
export const MAX_CALL_ROUNDS = 10;
const SUPERVISOR_ROLE = 'supervisor';

export interface CallOptions {
  io: WorkflowIo;
  participants: Character[];
  topic: string;
  rounds: number;
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
}

/** The first supervisor-role participant, else the last speaker. */
export function moderatorOf(participants: readonly Character[]): Character {
  return participants.find((participant) => participant.roles.includes(SUPERVISOR_ROLE)) ?? participants.at(-1)!;
}

function transcriptText(transcript: readonly CallTranscriptEntry[]): string {
  if (transcript.length === 0) return '(nobody has spoken yet — you open the debate)';
  return transcript.map((entry) => `[${entry.speaker.aiName}]: "${entry.text.trim()}"`).join('\n\n');
}

function turnPrompt(options: CallOptions, speaker: Character, round: number, transcript: readonly CallTranscriptEntry[]): string {
  const others = options.participants.filter((participant) => participant !== speaker).map((participant) => participant.aiName);
  return [
    `You are ${speaker.aiName} in a debate with ${others.join(', ')}. Topic: ${options.topic}`,
    '',
    'Transcript so far:',
    transcriptText(transcript),
    '',
    `Round ${round} of ${options.rounds}. Give your view in a few short paragraphs; answer the points the others made. No tools: argue from what you know.`,
  ].join('\n');
}

function synthesisPrompt(options: CallOptions, moderator: Character, transcript: readonly CallTranscriptEntry[]): string {
  return [
    `You moderated a debate between ${options.participants.map((participant) => participant.aiName).join(', ')}. Topic: ${options.topic}`,
    '',
    'Full transcript:',
    transcriptText(transcript),
    '',
    `As ${moderator.aiName}, write the closing synthesis: where the participants agree, where they differ, and a recommendation.`,
  ].join('\n');
}

export async function runCall(options: CallOptions): Promise<CallOutcome> {
  const { io, participants, rounds } = options;
  const transcript: CallTranscriptEntry[] = [];
  const moderator = moderatorOf(participants);
  const stopped = (): CallOutcome => ({ status: 'stopped', transcript, moderator });
  for (let round = 1; round <= rounds; round++) {
    if (io.signal.aborted) return stopped();
    await io.announce(`— Round ${round} of ${rounds} —`);
    for (const speaker of participants) {
      if (io.signal.aborted) return stopped();
      io.activity(`round ${round}/${rounds} · ${speaker.aiName} is speaking`);
      const outcome = await io.runMember({ character: speaker, prompt: turnPrompt(options, speaker, round, transcript), allowTools: false });
      if (outcome.finishReason === 'aborted' || io.signal.aborted) return stopped();
      if (outcome.finishReason === 'error') throw new WorkflowTurnError(speaker.aiName, outcome.error?.message ?? 'the model failed', { cause: outcome.error });
      if (outcome.text.trim() !== '') transcript.push({ speaker, text: outcome.text });
    }
  }
  if (io.signal.aborted) return stopped();
  await io.announce(`— Synthesis by ${moderator.aiName} —`);
  io.activity(`synthesis · ${moderator.aiName}`);
  const synthesis = await io.runMember({ character: moderator, prompt: synthesisPrompt(options, moderator, transcript), allowTools: false });
  if (synthesis.finishReason === 'aborted' || io.signal.aborted) return stopped();
  if (synthesis.finishReason === 'error')
    throw new WorkflowTurnError(moderator.aiName, synthesis.error?.message ?? 'the model failed', { cause: synthesis.error });
  return { status: 'completed', transcript, moderator, synthesis: synthesis.text };
}
