/**
 * `/call`: parses the participants and topic, opens the run and stages the debate in its thread;
 * a finished call ends with its verdict card (Adopt / Reopen, `verdict-buttons.ts`). A reopened
 * call runs one more round in the same thread, as a new run, from the stored transcript.
 */
import type { Character } from '../../core/data/types.js';
import { runCall, type CallOutcome, type CallTranscriptEntry } from '../../core/workflows/call.js';
import type { ChatSurface, ThreadRef } from '../chat-surface.js';
import type { CommandDependencies } from '../command-dependencies.js';
import type { CallPosition, CallVerdict } from '../../core/workflows/call-verdict.js';
import type { WorkflowServices } from '../workflow-handlers.js';
import type { SlashCommandEvent } from '../inbound-event.js';
import { parseCallCommand } from './parse-call.js';
import { openWorkflowSession } from './workflow-session.js';
import { runSafely } from './run-safely.js';
import { verdictButtons, verdictCardText } from './verdict-card.js';
import { verdictStore } from './verdict-store.js';
import { undecidedVerdicts } from './verdict-edit.js';

export interface CallCommandOptions {
  cardIntervalMs?: number;
}

export interface StageCallInput {
  event: Pick<SlashCommandEvent, 'user' | 'userName' | 'channel' | 'reply'>;
  participants: Character[];
  topic: string;
  rounds: number;
  /** A reopened call: where it continues, what was said, and the round it starts at. */
  reopen?: { thread: ThreadRef; previous: CallTranscriptEntry[]; firstRound: number };
}

export async function handleCallCommand(
  deps: CommandDependencies,
  services: WorkflowServices,
  event: SlashCommandEvent,
  surface: ChatSurface,
  options: CallCommandOptions = {},
): Promise<void> {
  const parsed = parseCallCommand(deps.roster, event.text);
  if (!parsed.ok) return event.reply(parsed.message);
  await stageCall(deps, services, surface, { event, participants: parsed.participants, topic: parsed.topic, rounds: parsed.rounds }, options);
}

/** Runs a call (new or reopened) to its verdict card. */
export async function stageCall(
  deps: CommandDependencies,
  services: WorkflowServices,
  surface: ChatSurface,
  input: StageCallInput,
  options: CallCommandOptions = {},
): Promise<void> {
  const { event, participants, topic, rounds, reopen } = input;
  const names = participants.map((participant) => participant.aiName);
  const session = await openWorkflowSession({
    deps,
    services,
    surface,
    event,
    kind: 'call',
    title: `Call${reopen ? ' (reopened)' : ''}: ${topic.slice(0, 80)}`,
    rootText: deps.maskSecrets(
      reopen
        ? `↩ Reopened by ${surface.mention(event.user)}: one more round — ${names.join(', ')}`
        : `📞 Call by ${surface.mention(event.user)}: ${topic} — ${names.join(', ')} · ${rounds} round${rounds === 1 ? '' : 's'}`,
    ),
    members: participants,
    ...(reopen ? { thread: reopen.thread } : {}),
    ...(options.cardIntervalMs !== undefined ? { cardIntervalMs: options.cardIntervalMs } : {}),
  });
  if (!session) return;
  let outcome: CallOutcome | undefined;
  await runSafely(session, deps, async () => {
    await deps.runs.appendEvent(session.runId, { type: 'message', agent: event.userName ?? event.user, text: deps.maskSecrets(topic) });
    outcome = await runCall({
      io: session.io,
      participants,
      topic,
      rounds,
      roster: deps.roster,
      ...(reopen ? { previous: reopen.previous, firstRound: reopen.firstRound } : {}),
    });
    return outcome.status === 'completed'
      ? { status: 'completed', headline: '✅ Call finished.', summary: `${outcome.transcript.length} turns, synthesis by ${outcome.moderator.aiName}.` }
      : { status: 'stopped', headline: '⏹ Call stopped.', summary: `Stopped after ${outcome.transcript.length} turns.` };
  });
  if (outcome?.status === 'completed' && outcome.verdict && !session.abort.signal.aborted) await postVerdict(deps, surface, session, input, outcome);
}

async function postVerdict(
  deps: CommandDependencies,
  surface: ChatSurface,
  session: { runId: string; thread: ThreadRef },
  input: StageCallInput,
  outcome: CallOutcome,
): Promise<void> {
  const verdict = maskVerdict(outcome.verdict!, deps.maskSecrets);
  const store = verdictStore(deps.store);
  // Stored before the card is shown: a click on it always finds its verdict.
  await store.save({
    runId: session.runId,
    platform: surface.platform,
    channel: input.event.channel,
    thread: session.thread,
    requester: input.event.user,
    participants: input.participants.map((participant) => participant.name),
    rounds: input.rounds,
    transcript: outcome.transcript.map((entry) => ({ speaker: entry.speaker.name, text: deps.maskSecrets(entry.text) })),
    verdict,
    state: 'open',
  });
  const text = deps.maskSecrets(verdictCardText(verdict, session.runId, surface.limits.maxMessageLength));
  await deps.runs.appendEvent(session.runId, { type: 'note', text });
  const card = await surface.post({ thread: session.thread, text, buttons: verdictButtons(session.runId, verdict) });
  await store.update(session.runId, (current) => (current ? { ...current, card } : current));
  // No decision stated: a DECISION: reply in the thread may state it (issue 35, `verdict-edit.ts`).
  if (!verdict.decisionGiven) await undecidedVerdicts(deps.store).remember(session.thread, session.runId);
}

/** The verdict with known secret values masked: it is stored, shown, saved to memory and written to a file. */
function maskVerdict(verdict: CallVerdict, mask: (text: string) => string): CallVerdict {
  const position = (entry: CallPosition): CallPosition => ({
    ...entry,
    position: mask(entry.position),
    ...(entry.reason !== undefined ? { reason: mask(entry.reason) } : {}),
  });
  return {
    ...verdict,
    topic: mask(verdict.topic),
    options: verdict.options.map(mask),
    positions: verdict.positions.map(position),
    decision: mask(verdict.decision),
    synthesis: mask(verdict.synthesis),
    dissent: verdict.dissent.map(position),
  };
}
