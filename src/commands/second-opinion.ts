/**
 * The menus under a finished reply (issue 28): **Ask another character** and **Re-run**. Both read
 * the reply's stored run (its request, its reply, its tool results) and start a new turn in the
 * same thread — nothing is retyped. The run must be a conversation of the very channel and thread
 * the menu was used in, so no click reaches another channel's transcript; the new turn is the
 * clicker's (its approvals follow the approval rules with the clicker as the requester), and as a
 * new run it holds no grant of the old one: a DANGEROUS call is asked again.
 */
import type { Character } from '../core/data/types.js';
import { findCharacter } from '../core/data/character-lookup.js';
import type { RunRecord } from '../core/store/run-types.js';
import { SECOND_ASK_ACTION, SECOND_RERUN_ACTION } from './action-ids.js';
import type { ChatSurface, ThreadRef } from './chat-surface.js';
import type { CommandDependencies } from './command-dependencies.js';
import type { Conversations } from './conversations.js';
import type { ButtonActionEvent } from './inbound-event.js';
import { createChannelSettings } from './channel-settings.js';
import { parseSecondOpinionChoice, serverLabel, type SecondOpinionChoice } from './second-opinion-menu.js';
import { requestOf, secondOpinionPrompt } from './second-opinion-prompt.js';
import type { TurnRerun } from './run-turn.js';

const ACTIONS = new Set([SECOND_ASK_ACTION, SECOND_RERUN_ACTION]);

/** The run a menu names, when it is a conversation turn of this very channel and thread. */
function runHere(run: RunRecord | undefined, event: ButtonActionEvent, surface: ChatSurface): (RunRecord & { where: { threadId: ThreadRef } }) | undefined {
  if (run?.kind !== 'ask' || !run.where.threadId) return undefined;
  if (run.where.platform !== surface.platform || run.where.channelId !== event.channel) return undefined;
  if (event.thread !== undefined && event.thread !== run.where.threadId) return undefined;
  return run as RunRecord & { where: { threadId: ThreadRef } };
}

/** The history a re-run starts from: the thread's as its run saw it, when the session still holds it. */
async function historyBefore(deps: CommandDependencies, run: RunRecord, request: string): Promise<number | undefined> {
  const from = run.stats?.historyFrom;
  if (typeof from !== 'number') return undefined;
  const history = (await deps.sessions.get(run.where.threadId!))?.history ?? [];
  const first = history[from];
  // A reset since (or a history of another conversation): start fresh rather than from the wrong place.
  return first?.role === 'user' && first.content.includes(request) ? from : 0;
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
  const run = runHere(await deps.runs.get(event.value), event, surface);
  if (!run) {
    await event.replyEphemeral('This reply’s run is not available here any more (unknown, too old, or of another conversation).');
    return true;
  }
  const events = await deps.runs.events(run.id);
  const request = requestOf(events);
  const answeredBy = findCharacter(deps.roster, String(run.stats?.character ?? ''));
  if (!request || !answeredBy) {
    await event.replyEphemeral('This reply stored no request or character to start from: ask again.');
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
  await surface.post({ thread: run.where.threadId, text: line });
  await deps.runs.appendEvent(run.id, {
    type: 'note',
    text: `${choice.kind === 'ask' ? 'second opinion asked of' : 're-run as'} ${character.name} by ${event.user}${server ? ` on ${serverLabel(server)}` : ''}`,
  });
  let rerun: TurnRerun | undefined;
  if (choice.kind === 'rerun') {
    const historyLength = await historyBefore(deps, run, request.text);
    rerun = { ...(server ? { server } : {}), ...(historyLength === undefined ? {} : { historyLength }) };
  }
  const text =
    choice.kind === 'ask'
      ? secondOpinionPrompt({ events, answeredBy, askedBy: event.userName ?? event.user })
      : // The request as stored (masked): a secret in it is never sent again.
        request.text;
  await context.conversations.startTurn(run.where.threadId, {
    surface,
    character,
    text,
    user: event.user,
    ...(event.userName ? { userName: event.userName } : {}),
    channel: run.where.channelId,
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
