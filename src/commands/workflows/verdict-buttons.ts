/**
 * The verdict card's buttons (issue 28). **Adopt** (the person who started the call, or an admin):
 * the decision becomes a `decision` fact in the call's channel, citing the run (audited), and —
 * after the usual write approval — `docs/decisions/NNNN-title.md` in the channel's workspace.
 * **Reopen** (the same people): one more round in the same thread, as a new run with a new verdict.
 * One click wins: the stored verdict moves from `open` once.
 */
import { readdir } from 'node:fs/promises';
import { decisionFileName, decisionRecordMarkdown, DECISIONS_FOLDER, nextDecisionNumber } from '../../core/workflows/decision-record.js';
import { MEMORY_SUMMARY_MAX_CHARS } from '../../core/memory/memory-fact.js';
import { createPermissionManager } from '../../core/safety/permission-manager.js';
import { scopedMemory } from '../../core/scopes/memory-access.js';
import type { Character } from '../../core/data/types.js';
import { VERDICT_ADOPT_ACTION, VERDICT_REOPEN_ACTION } from '../action-ids.js';
import { depsInChannel } from '../channels/channel-deps.js';
import type { ChatSurface } from '../chat-surface.js';
import type { CommandDependencies } from '../command-dependencies.js';
import type { ButtonActionEvent } from '../inbound-event.js';
import { memoryAccessFor } from '../runs/memory-access-for.js';
import type { WorkflowServices } from '../workflow-handlers.js';
import { writeWithApproval } from './approved-write.js';
import { stageCall, type CallCommandOptions } from './call-command.js';
import { verdictCardText } from './verdict-card.js';
import { verdictStore, type StoredVerdict } from './verdict-store.js';

const STALE = 'This verdict is no longer available (its run is unknown or too old).';

/** Handles Adopt and Reopen; false for any other button. */
export async function handleVerdictButton(
  deps: CommandDependencies,
  services: WorkflowServices,
  event: ButtonActionEvent,
  surface: ChatSurface,
  options: CallCommandOptions = {},
): Promise<boolean> {
  if (event.actionId !== VERDICT_ADOPT_ACTION && event.actionId !== VERDICT_REOPEN_ACTION) return false;
  const store = verdictStore(deps.store);
  const record = await store.get(event.value);
  if (!record) {
    await event.replyEphemeral(STALE);
    await event.clearButtons?.().catch((error: unknown) => deps.logger.warn('could not remove stale buttons', { message: event.message, error }));
    return true;
  }
  const isAdmin = deps.settings.admins.includes(event.user);
  const adopt = event.actionId === VERDICT_ADOPT_ACTION;
  if (event.user !== record.requester && !isAdmin) {
    await event.replyEphemeral(`Only the person who started this call or an admin can ${adopt ? 'adopt its verdict' : 'reopen it'}.`);
    return true;
  }
  // Issue 35: a verdict without a stated decision is never adopted (its card offers Reopen only; an older card may still show Adopt).
  if (adopt && !record.verdict.decisionGiven) {
    await event.replyEphemeral('This verdict states no decision, so there is nothing to adopt: Reopen runs one more round and asks the moderator again.');
    return true;
  }
  // One click wins, on any replica: the stored state leaves `open` once.
  let claimed = false;
  const current = await store.update(record.runId, (stored) => {
    if (stored?.state !== 'open') return stored;
    claimed = true;
    return { ...stored, state: adopt ? 'adopting' : 'reopened' };
  });
  if (!claimed || !current) {
    await event.replyEphemeral(alreadyDecided(record));
    return true;
  }
  try {
    if (adopt) await adoptVerdict(deps, services, event, surface, current);
    else await reopenVerdict(deps, services, event, surface, current, options);
  } catch (error) {
    // Nothing was decided after all (memory or the thread failed before the decision was saved): the buttons work again.
    await store
      .update(record.runId, (stored) => (stored && stored.state === current.state && !stored.decisionId ? { ...stored, state: 'open' } : stored))
      .catch((failure: unknown) => deps.logger.warn('could not reopen a verdict after a failure', { runId: record.runId, error: failure }));
    throw error;
  }
  return true;
}

function alreadyDecided(record: StoredVerdict): string {
  if (record.state === 'reopened') return 'This verdict was reopened: the newer verdict below is the one to adopt.';
  return record.decisionId ? `This verdict is already adopted as decision ${record.decisionId}.` : 'This verdict is being adopted.';
}

async function editCard(deps: CommandDependencies, surface: ChatSurface, record: StoredVerdict, footer: string): Promise<void> {
  if (!record.card) return;
  await surface
    .edit({
      message: record.card,
      text: deps.maskSecrets(`${verdictCardText(record.verdict, record.runId, surface.limits.maxMessageLength)}\n${footer}`),
      buttons: [],
    })
    .catch((error: unknown) => deps.logger.warn('could not edit the verdict card', { runId: record.runId, error }));
}

async function adoptVerdict(
  deps: CommandDependencies,
  services: WorkflowServices,
  event: ButtonActionEvent,
  surface: ChatSurface,
  record: StoredVerdict,
): Promise<void> {
  const { verdict } = record;
  const memory = scopedMemory(deps.memory, memoryAccessFor(deps.settings, { channel: record.channel, user: event.user }));
  const votes = verdict.positions.map((position) => `${position.aiName} ${position.vote ?? 'no vote'}`).join(', ');
  const { fact } = await memory.save({
    kind: 'decision',
    content: [
      `Decision: ${verdict.decision}`,
      `Adopted from the /call run ${record.runId} on "${verdict.topic}" (votes: ${votes}).`,
      ...(verdict.dissent.length > 0
        ? [`Dissent: ${verdict.dissent.map((position) => `${position.aiName} (${position.reason ?? position.vote})`).join('; ')}.`]
        : []),
    ].join('\n'),
    summary: `Decision: ${verdict.decision}`.slice(0, MEMORY_SUMMARY_MAX_CHARS),
    tags: ['decision', record.runId],
    author: verdict.moderator,
  });
  const where = { platform: record.platform, channelId: record.channel, threadId: record.thread };
  await deps.audit.append({ type: 'memory-decision', actor: event.user, where, factId: fact.id, scope: fact.scope });
  await deps.runs.appendEvent(record.runId, { type: 'note', text: `decision ${fact.id} adopted by ${event.user}` });
  await verdictStore(deps.store).update(record.runId, (stored) => (stored ? { ...stored, state: 'adopted', decisionId: fact.id } : stored));
  await editCard(deps, surface, record, `📌 Adopted by ${surface.mention(event.user)} as decision \`${fact.id}\`.`);

  const channelDeps = await depsInChannel(deps, record.channel, surface);
  const folder = await channelDeps.workspace
    .resolve(DECISIONS_FOLDER)
    .then((absolute) => readdir(absolute))
    .catch((error: unknown) => {
      // No folder yet (the first record): numbering starts at 0001.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') deps.logger.warn('could not list the decision records', { error });
      return [] as string[];
    });
  const number = nextDecisionNumber(folder);
  const file = `${DECISIONS_FOLDER}/${decisionFileName(number, verdict.decision)}`;
  await surface.post({
    thread: record.thread,
    text: deps.maskSecrets(`📌 Decision \`${fact.id}\` is in this channel's memory. Its record goes to \`${file}\` once the write is approved.`),
  });
  const content = decisionRecordMarkdown({
    number,
    verdict,
    runId: record.runId,
    factId: fact.id,
    adoptedBy: event.userName ?? event.user,
    at: Date.now(),
  });
  // Registered like a run: Stop on shutdown ends the wait for the approval.
  const abort = new AbortController();
  let settle: () => void = () => undefined;
  services.activeRuns.register({ runId: `${record.runId}-adopt`, requester: event.user, abort, done: new Promise<void>((resolve) => (settle = resolve)) });
  try {
    const permissions = createPermissionManager({
      prompt: services.approvals.promptFor({ surface, thread: record.thread, requester: event.user }),
      logger: deps.logger,
    });
    const written = await writeWithApproval({
      deps: channelDeps,
      permissions,
      runId: record.runId,
      agentName: 'TSUKA',
      requesterId: event.user,
      path: file,
      content,
      signal: abort.signal,
    });
    if (written.ok) await verdictStore(deps.store).update(record.runId, (stored) => (stored ? { ...stored, adrPath: file } : stored));
    const text = written.ok
      ? `📄 Wrote \`${file}\` (decision \`${fact.id}\`, run \`${record.runId}\`).`
      : `📄 \`${file}\` was not written (${written.note}); decision \`${fact.id}\` stays in memory.`;
    await deps.runs.appendEvent(record.runId, { type: 'note', text });
    await surface.post({ thread: record.thread, text: deps.maskSecrets(text) });
  } finally {
    settle();
  }
}

async function reopenVerdict(
  deps: CommandDependencies,
  services: WorkflowServices,
  event: ButtonActionEvent,
  surface: ChatSurface,
  record: StoredVerdict,
  options: CallCommandOptions,
): Promise<void> {
  const participants = record.participants.map((name) => deps.roster.characters.get(name)).filter((character): character is Character => Boolean(character));
  if (participants.length < 2) {
    await event.replyEphemeral('This call cannot be reopened: fewer than two of its participants are still in the roster.');
    return;
  }
  await editCard(deps, surface, record, `↩ Reopened by ${surface.mention(event.user)}: one more round below.`);
  const previous = record.transcript.flatMap((turn) => {
    const speaker = deps.roster.characters.get(turn.speaker);
    return speaker ? [{ speaker, text: turn.text }] : [];
  });
  await stageCall(
    await depsInChannel(deps, record.channel, surface),
    services,
    surface,
    {
      event: { user: event.user, ...(event.userName ? { userName: event.userName } : {}), channel: record.channel, reply: event.replyEphemeral },
      participants,
      topic: record.verdict.topic,
      rounds: record.rounds + 1,
      reopen: { thread: record.thread, previous, firstRound: record.rounds + 1 },
    },
    options,
  );
}
