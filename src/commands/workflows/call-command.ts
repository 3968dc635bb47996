/** `/call`: parses the participants and topic, opens the run and stages the debate in its thread. */
import { runCall } from '../../core/workflows/call.js';
import type { ChatSurface } from '../chat-surface.js';
import type { CommandDependencies } from '../command-dependencies.js';
import type { WorkflowServices } from '../workflow-handlers.js';
import type { SlashCommandEvent } from '../inbound-event.js';
import { parseCallCommand } from './parse-call.js';
import { openWorkflowSession } from './workflow-session.js';
import { runSafely } from './run-safely.js';

export interface CallCommandOptions {
  cardIntervalMs?: number;
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
  const names = parsed.participants.map((participant) => participant.aiName);
  const session = await openWorkflowSession({
    deps,
    services,
    surface,
    event,
    kind: 'call',
    title: `Call: ${parsed.topic.slice(0, 80)}`,
    rootText: deps.maskSecrets(
      `📞 Call by ${surface.mention(event.user)}: ${parsed.topic} — ${names.join(', ')} · ${parsed.rounds} round${parsed.rounds === 1 ? '' : 's'}`,
    ),
    members: parsed.participants,
    ...(options.cardIntervalMs !== undefined ? { cardIntervalMs: options.cardIntervalMs } : {}),
  });
  if (!session) return;
  await runSafely(session, deps, async () => {
    await deps.runs.appendEvent(session.runId, { type: 'message', agent: event.userName ?? event.user, text: deps.maskSecrets(parsed.topic) });
    const outcome = await runCall({ io: session.io, participants: parsed.participants, topic: parsed.topic, rounds: parsed.rounds });
    return outcome.status === 'completed'
      ? { status: 'completed', headline: '✅ Call finished.', summary: `${outcome.transcript.length} turns, synthesis by ${outcome.moderator.aiName}.` }
      : { status: 'stopped', headline: '⏹ Call stopped.', summary: `Stopped after ${outcome.transcript.length} turns.` };
  });
}
