/**
 * Stating the decision of a /call verdict that has none (issue 35): the card offers Reopen, not
 * Adopt; whoever started the call (or an admin) may reply in its thread with a `DECISION:` line
 * (written any usual way). The verdict then carries that decision, marked as stated in the thread,
 * and the card gets Adopt back. The topic is never taken for a decision.
 */
import { DECISION_MAX_CHARS, parseModeratorText } from '../../core/workflows/call-verdict.js';
import type { Store } from '../../core/store/open-store.js';
import type { ChatSurface, ThreadRef } from '../chat-surface.js';
import type { CommandDependencies } from '../command-dependencies.js';
import type { ThreadMessageEvent } from '../inbound-event.js';
import { verdictButtons, verdictCardText } from './verdict-card.js';
import { VERDICT_TTL_MS, verdictStore } from './verdict-store.js';

/** Thread → the run of its latest verdict without a decision. */
const THREADS_NAMESPACE = 'call-verdict-undecided';

export function undecidedVerdicts(store: Store) {
  const namespace = store.namespace<string>(THREADS_NAMESPACE);
  return {
    remember: (thread: ThreadRef, runId: string) => namespace.set(thread, runId, VERDICT_TTL_MS),
    runOf: (thread: ThreadRef) => namespace.get(thread),
    forget: (thread: ThreadRef) => namespace.delete(thread),
  };
}

/** A reply with a DECISION line, by the requester or an admin, to an open verdict without one; false when the reply is not that. */
export async function handleVerdictDecisionReply(deps: CommandDependencies, event: ThreadMessageEvent, surface: ChatSurface): Promise<boolean> {
  const threads = undecidedVerdicts(deps.store);
  const runId = await threads.runOf(event.thread);
  if (!runId) return false;
  const stated = parseModeratorText(event.text).decision;
  if (!stated) return false;
  const store = verdictStore(deps.store);
  const record = await store.get(runId);
  if (record?.state !== 'open' || record.verdict.decisionGiven) return false;
  if (event.user !== record.requester && !deps.settings.admins.includes(event.user)) return false;
  const decision = deps.maskSecrets(stated).slice(0, DECISION_MAX_CHARS);
  const editedBy = surface.mention(event.user);
  const updated = await store.update(runId, (current) =>
    current && current.state === 'open' && !current.verdict.decisionGiven
      ? { ...current, verdict: { ...current.verdict, decision, decisionGiven: true, decisionSource: 'edited', editedBy } }
      : current,
  );
  if (!updated?.verdict.decisionGiven) return false;
  await threads.forget(event.thread);
  await deps.runs.appendEvent(runId, { type: 'note', text: `decision stated by ${event.user}: ${decision}` });
  if (updated.card)
    await surface
      .edit({
        message: updated.card,
        text: deps.maskSecrets(verdictCardText(updated.verdict, runId, surface.limits.maxMessageLength)),
        buttons: verdictButtons(runId, updated.verdict),
      })
      .catch((error: unknown) => deps.logger.warn('could not edit the verdict card', { runId, error }));
  await surface.post({
    thread: event.thread,
    text: deps.maskSecrets(`📝 Decision stated by ${editedBy}: ${decision} — Adopt on the verdict card records it.`),
  });
  return true;
}
