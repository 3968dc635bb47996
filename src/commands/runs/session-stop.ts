/**
 * The platform's own Stop on a working thread (Slack's agent session: `agent_session_stopped`),
 * which names the thread and the person, not the run: every run in progress in that thread is
 * stopped as its Stop button would (on whichever replica runs it, by its requester or an admin),
 * and its reply ends with "Stopped by <person>".
 */
import type { ActiveRuns } from './active-runs.js';
import type { ButtonActionEvent } from '../inbound-event.js';

export async function stopThreadRuns(event: ButtonActionEvent, activeRuns: ActiveRuns): Promise<void> {
  const thread = event.thread ?? event.message;
  const runIds = await activeRuns.inThread(thread);
  if (runIds.length === 0) return event.replyEphemeral('Nothing is running in this thread.');
  const outcomes = await Promise.all(runIds.map((runId) => activeRuns.stop(runId, event.user)));
  if (outcomes.includes('stopped')) return;
  if (outcomes.includes('forbidden')) return event.replyEphemeral('Only the person who started this run or an admin can stop it.');
  return event.replyEphemeral('This run has ended.');
}
