/**
 * The two menus under a finished reply (issue 28, "a second opinion in one click"): **Ask another
 * character** (each character the channel allows, but the one who answered) and **Re-run** (the
 * same request again: as it was, as another character, or on another model server when several
 * are configured). Both carry the reply's run id; the option picked comes back as the choice,
 * parsed here again — a choice is data from the platform and is checked like any input.
 */
import type { Character, Roster } from '../../core/data/types.js';
import { SECOND_ASK_ACTION, SECOND_RERUN_ACTION } from '../action-ids.js';
import { MENU_MAX_OPTIONS, type Button, type ChannelRef, type ChatSurface, type MenuOption } from '../chat-surface.js';
import type { CommandDependencies } from '../command-dependencies.js';

export interface SecondOpinionMenuInput {
  runId: string;
  /** The character who answered. */
  character: Character;
  roster: Roster;
  /** The characters the channel allows (its `channels` entry); undefined: every one. */
  allowed?: readonly string[];
  /** The model servers, in configured order (a re-run may pick one when there are several). */
  servers?: readonly string[];
}

/** What a picked option asks for. */
export type SecondOpinionChoice =
  | { kind: 'ask'; character: string }
  /** `character` absent: the same one; `server` absent: any (the usual queue over every server). */
  | { kind: 'rerun'; character?: string; server?: number };

/** The characters other than the one who answered, that this channel allows, in roster order. */
function others(input: SecondOpinionMenuInput): Character[] {
  return [...input.roster.characters.values()].filter(
    (candidate) => candidate.name !== input.character.name && (!input.allowed || input.allowed.includes(candidate.name)),
  );
}

/** `http://10.0.0.5:8080/v1` → `10.0.0.5:8080`: how a server is named in a menu. */
export function serverLabel(server: string): string {
  // Not a URL (an injected model's name, say): shown as configured; the masking surface masks secrets.
  return URL.canParse(server) ? new URL(server).host || server : server;
}

/** The menus for a finished reply; none when there is nobody else to ask and nothing to pick. */
export function secondOpinionMenus(input: SecondOpinionMenuInput): Button[] {
  const characters = others(input);
  const servers = input.servers && input.servers.length > 1 ? input.servers : [];
  const ask: MenuOption[] = characters.map((character) => ({ label: `Ask ${character.aiName}`, choice: `ask:${character.name}` }));
  const rerun: MenuOption[] = [
    { label: `Re-run (${input.character.aiName})`, choice: 'rerun' },
    ...servers.map((server, index) => ({ label: `Re-run on ${serverLabel(server)}`, choice: `rerun@${index + 1}` })),
    ...characters.map((character) => ({ label: `Re-run as ${character.aiName}`, choice: `rerun:${character.name}` })),
  ];
  const menus: Button[] = [];
  if (ask.length > 0)
    menus.push({
      actionId: SECOND_ASK_ACTION,
      label: 'Ask another character…',
      style: 'secondary',
      value: input.runId,
      options: ask.slice(0, MENU_MAX_OPTIONS),
    });
  menus.push({ actionId: SECOND_RERUN_ACTION, label: 'Re-run…', style: 'secondary', value: input.runId, options: rerun.slice(0, MENU_MAX_OPTIONS) });
  return menus;
}

/** The choice of a menu's option, or undefined when it is not one these menus make. */
export function parseSecondOpinionChoice(actionId: string, choice: string | undefined): SecondOpinionChoice | undefined {
  if (!choice) return undefined;
  if (actionId === SECOND_ASK_ACTION) {
    const ask = /^ask:([\w-]{1,40})$/.exec(choice);
    return ask ? { kind: 'ask', character: ask[1]! } : undefined;
  }
  if (actionId !== SECOND_RERUN_ACTION) return undefined;
  if (choice === 'rerun') return { kind: 'rerun' };
  const as = /^rerun:([\w-]{1,40})$/.exec(choice);
  if (as) return { kind: 'rerun', character: as[1]! };
  const on = /^rerun@([1-9]\d{0,2})$/.exec(choice);
  return on ? { kind: 'rerun', server: Number(on[1]) } : undefined;
}

/** The menus for a reply in `channel`: the characters it allows, the servers configured; none when that cannot be read. */
export async function replyMenus(
  deps: Pick<CommandDependencies, 'roster' | 'models' | 'channelSettings' | 'logger'>,
  reply: { runId: string; character: Character; channel: ChannelRef; surface: ChatSurface },
): Promise<Button[]> {
  try {
    const settings = await deps.channelSettings?.(reply.channel, reply.surface);
    return secondOpinionMenus({
      runId: reply.runId,
      character: reply.character,
      roster: deps.roster,
      ...(settings?.characters ? { allowed: settings.characters } : {}),
      servers: deps.models.serverUrls?.() ?? [],
    });
  } catch (error) {
    // The reply itself matters more than its menus: it ends without them.
    deps.logger.warn('could not build the second-opinion menus', { runId: reply.runId, error });
    return [];
  }
}
