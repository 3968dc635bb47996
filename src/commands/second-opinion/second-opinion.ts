/**
 * The menus under a finished reply (issue 28): **Ask another character** and **Re-run**. Both read
 * the reply's stored transcript (a conversation turn's run log, or a /goal step kept by
 * `step-opinions.ts`: its request, its reply, its tool results) and start a new turn in the same
 * thread — nothing is retyped. The reply must be one of the very channel and thread the menu was
 * used in, so no click reaches another channel's transcript; the new turn is the
 * clicker's (its approvals follow the approval rules with the clicker as the requester), and as a
 * new run it holds no grant of the old one: a DANGEROUS call is asked again.
 */
import type { Character } from '../../core/data/types.js';
import { findCharacter } from '../../core/data/character-lookup.js';
import { SECOND_ASK_ACTION, SECOND_RERUN_ACTION } from '../action-ids.js';
import type { ChatSurface, ThreadRef } from '../chat-surface.js';
import type { CommandDependencies } from '../command-dependencies.js';
import type { Conversations } from '../turns/conversations.js';
import type { ButtonActionEvent } from '../inbound-event.js';
import { createChannelSettings } from '../channels/channel-settings.js';
import { parseSecondOpinionChoice, serverLabel, type SecondOpinionChoice } from './second-opinion-menu.js';
import { secondOpinionPrompt, transcriptOfRun, type ReplyTranscript } from './second-opinion-prompt.js';
import { STEP_KEY_SEPARATOR, stepOpinions } from '../workflows/step-opinions.js';
import type { TurnRerun } from '../turns/run-turn.js';

const ACTIONS = new Set([SECOND_ASK_ACTION, SECOND_RERUN_ACTION]);

/** What a menu's reply was: where, who answered, what it read and said; and, for a conversation turn, its run. */
interface MenuReply {
  runId: string;
  channel: string;
  thread: ThreadRef;
  answeredBy: Character;
  transcript: ReplyTranscript;
  /** A conversation turn: where its turn starts in the thread's history (a Re-run starts there). */
  historyFrom?: number;
}

/** The reply a menu names, when it is one of this very channel and thread (a conversation turn, or a /goal step). */
async function replyHere(deps: CommandDependencies, event: ButtonActionEvent, surface: ChatSurface): Promise<MenuReply | undefined> {
  const here = (where: { platform: string; channel: string; thread?: string }) =>
    where.platform === surface.platform &&
    where.channel === event.channel &&
    where.thread !== undefined &&
    (event.thread === undefined || event.thread === where.thread);
  if (event.value.includes(STEP_KEY_SEPARATOR)) {
    const step = await stepOpinions(deps.store).get(event.value);
    const answeredBy = step ? findCharacter(deps.roster, step.character) : undefined;
    if (!step || !answeredBy || !here(step)) return undefined;
    return { runId: step.runId, channel: step.channel, thread: step.thread, answeredBy, transcript: step.transcript };
  }
  const run = await deps.runs.get(event.value);
  if (run?.kind !== 'ask' || !here({ platform: run.where.platform, channel: run.where.channelId, thread: run.where.threadId })) return undefined;
  const answeredBy = findCharacter(deps.roster, String(run.stats?.character ?? ''));
  if (!answeredBy) return undefined;
  const from = run.stats?.historyFrom;
  return {
    runId: run.id,
    channel: run.where.channelId,
    thread: run.where.threadId!,
    answeredBy,
    transcript: transcriptOfRun(await deps.runs.events(run.id), answeredBy.name),
    ...(typeof from === 'number' ? { historyFrom: from } : {}),
  };
}

/** The history a re-run starts from: the thread's as its turn saw it when the session still holds it; a step starts fresh. */
async function historyBefore(deps: CommandDependencies, reply: MenuReply, request: string): Promise<number> {
  if (reply.historyFrom === undefined) return 0;
  const history = (await deps.sessions.get(reply.thread))?.history ?? [];
  const first = history[reply.historyFrom];
  // A reset since (or a history of another conversation): start fresh rather than from the wrong place.
  return first?.role === 'user' && first.content.includes(request) ? reply.historyFrom : 0;
}

/** Handles the two menus; false for any other action. */
export async function handleSecondOpinion(
  event: ButtonActionEvent,
  surface: ChatSurface,
  context: { deps: CommandDependencies; conversations: Conversations },
): Promise<boolean> {
  if (!ACTIONS.has(event.actionId)) return false;
  const { deps } = context;
  const choice = parseSecondOpinionChoice(event.actionId, event.choice);
  if (!choice) {
    await event.replyEphemeral('Pick one of the menu’s options.');
    return true;
  }
  const reply = await replyHere(deps, event, surface);
  if (!reply) {
    await event.replyEphemeral('This reply is not available here any more (unknown, too old, or of another conversation).');
    return true;
  }
  const { answeredBy, transcript } = reply;
  const request = transcript.request;
  if (!request) {
    await event.replyEphemeral('This reply stored no request to start from: ask again.');
    return true;
  }
  const character = await pickCharacter(deps, event, surface, choice, answeredBy);
  if (!character) return true;
  const server = choice.kind === 'rerun' && choice.server !== undefined ? deps.models.serverUrls?.()[choice.server - 1] : undefined;
  if (choice.kind === 'rerun' && choice.server !== undefined && !server) {
    await event.replyEphemeral('That model server is not configured any more.');
    return true;
  }
  const asker = surface.mention(event.user);
  const line =
    choice.kind === 'ask'
      ? `🔁 ${asker} asked ${character.aiName} for a second opinion on ${answeredBy.aiName}'s reply.`
      : `🔁 ${asker} re-runs the request${character === answeredBy ? '' : ` as ${character.aiName}`}${server ? ` on ${serverLabel(server)}` : ''}.`;
  await surface.post({ thread: reply.thread, text: line });
  await deps.runs.appendEvent(reply.runId, {
    type: 'note',
    text: `${choice.kind === 'ask' ? 'second opinion asked of' : 're-run as'} ${character.name} by ${event.user}${server ? ` on ${serverLabel(server)}` : ''}`,
  });
  const rerun: TurnRerun | undefined =
    choice.kind === 'rerun' ? { ...(server ? { server } : {}), historyLength: await historyBefore(deps, reply, request.text) } : undefined;
  await context.conversations.startTurn(reply.thread, {
    surface,
    character,
    // A Re-run sends the request as stored (masked): a secret in it is never sent again.
    text: choice.kind === 'ask' ? secondOpinionPrompt({ transcript, answeredBy, askedBy: event.userName ?? event.user }) : request.text,
    user: event.user,
    ...(event.userName ? { userName: event.userName } : {}),
    channel: reply.channel,
    ...(rerun ? { rerun } : {}),
  });
  return true;
}

/** The character the choice names, when it exists and the channel allows it; else the clicker is told why. */
async function pickCharacter(
  deps: CommandDependencies,
  event: ButtonActionEvent,
  surface: ChatSurface,
  choice: SecondOpinionChoice,
  answeredBy: Character,
): Promise<Character | undefined> {
  const name = choice.character ?? answeredBy.name;
  const character = findCharacter(deps.roster, name);
  if (!character || character.name !== name) {
    await event.replyEphemeral(`There is no character "${name}" any more.`);
    return undefined;
  }
  const settings = await (deps.channelSettings ?? createChannelSettings(deps))(event.channel, surface);
  if (settings.characters && !settings.characters.includes(character.name)) {
    await event.replyEphemeral(`${character.aiName} is not available in this channel. Here: ${settings.characters.join(', ')}.`);
    return undefined;
  }
  return character;
}
