/** Which character a message speaks to: a leading name, else the thread's, the channel's, the configured default. */
import type { Character, Roster } from '../../core/data/types.js';
import { findCharacter } from '../../core/data/character-lookup.js';
import type { Identity } from '../chat-surface.js';
import { avatarPath, avatarUrlOf } from '../reply/avatars.js';
import { isAvatarFile } from '../../core/data/avatar-files.js';

/** Strips a leading character name (`geordi`, `@Geordi`, `geordi:`) and returns it with the rest. */
export function takeLeadingCharacter(roster: Roster, text: string): { character?: Character; rest: string } {
  const match = /^\s*@?([\p{L}\p{N}_.-]+)[,:]?(?:\s+|$)/u.exec(text);
  if (!match) return { rest: text.trim() };
  const character = findCharacter(roster, match[1]!.replace(/[.]+$/, ''));
  if (!character) return { rest: text.trim() };
  return { character, rest: text.slice(match[0].length).trim() };
}

/**
 * A leading `@name` that names no character (`@picard hello`): the name and the text after it.
 * Only with the `@`, so an ordinary first word ("hello there") is never taken for a name.
 */
export function takeUnknownName(roster: Roster, text: string): { name: string; rest: string } | undefined {
  const match = /^\s*@([\p{L}][\p{L}\p{N}_.-]*)[,:]?(?:\s+|$)/u.exec(text);
  if (!match || findCharacter(roster, match[1]!.replace(/[.]+$/, ''))) return undefined;
  return { name: match[1]!, rest: text.slice(match[0].length).trim() };
}

/** A plain-text `@name` at the very start (plain mentions): only with the `@`. */
export function takePlainMention(roster: Roster, text: string): { character?: Character; rest: string } {
  if (!/^\s*@[\p{L}]/u.test(text)) return { rest: text.trim() };
  return takeLeadingCharacter(roster, text);
}

/** Who a character posts as: its name, its emoji or URL, and its picture (under `publicUrl` when set: `TSUKA_PUBLIC_URL`). */
export function identityOf(character: Character, publicUrl?: string): Identity & { avatar: string } {
  const avatarUrl = avatarUrlOf(character, publicUrl);
  // A picture file is no emoji and no URL a platform could use: it is served at avatarPath (and avatarUrl).
  const avatar = isAvatarFile(character.avatar) ? '' : character.avatar;
  return { name: character.aiName, avatar, avatarPath: avatarPath(character.name), character: character.name, ...(avatarUrl ? { avatarUrl } : {}) };
}
