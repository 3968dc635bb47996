import { editDistance } from './edit-distance.js';
import type { Character, Roster, Team } from './types.js';

/** The greatest number of edits at which a name is still offered as "did you mean". */
export const SUGGESTION_MAX_EDIT_DISTANCE = 2;

function normalizeCharacterName(text: string): string {
  return text.trim().replace(/^@/, '').toLowerCase();
}

function normalizeTeamName(text: string): string {
  return text.trim().toLowerCase().replace(/-/g, '_');
}

/**
 * The character a chat user means: matched on the file name or the aiName, ignoring case and a leading `@`.
 * A file-name match wins over another character's aiName (the loader rejects such overlaps anyway).
 */
export function findCharacter(roster: Roster, nameOrAiName: string): Character | undefined {
  const wanted = normalizeCharacterName(nameOrAiName);
  if (wanted === '') return undefined;
  const byName = roster.characters.get(wanted);
  if (byName) return byName;
  for (const character of roster.characters.values()) {
    if (character.name.toLowerCase() === wanted || character.aiName.toLowerCase() === wanted) return character;
  }
  return undefined;
}

/** Characters whose file name or aiName is within two edits of `text`, nearest first: for "did you mean @Geordi?". */
export function suggestCharacters(roster: Roster, text: string): Character[] {
  const wanted = normalizeCharacterName(text);
  if (wanted === '') return [];
  const scored: { character: Character; distance: number }[] = [];
  for (const character of roster.characters.values()) {
    const distance = Math.min(editDistance(wanted, character.name.toLowerCase()), editDistance(wanted, character.aiName.toLowerCase()));
    if (distance <= SUGGESTION_MAX_EDIT_DISTANCE) scored.push({ character, distance });
  }
  return scored.sort((a, b) => a.distance - b.distance || a.character.name.localeCompare(b.character.name)).map((entry) => entry.character);
}

/** The team of that name, ignoring case and treating `-` as `_` (`Dev-Security` finds `dev_security`). */
export function findTeam(roster: Roster, name: string): Team | undefined {
  const wanted = normalizeTeamName(name);
  if (wanted === '') return undefined;
  const exact = roster.teams.get(wanted);
  if (exact) return exact;
  for (const team of roster.teams.values()) {
    if (team.name.toLowerCase() === wanted) return team;
  }
  return undefined;
}

/** Teams whose name is within two edits of `text`, nearest first. */
export function suggestTeams(roster: Roster, text: string): Team[] {
  const wanted = normalizeTeamName(text);
  if (wanted === '') return [];
  return [...roster.teams.values()]
    .map((team) => ({ team, distance: editDistance(wanted, team.name.toLowerCase()) }))
    .filter((entry) => entry.distance <= SUGGESTION_MAX_EDIT_DISTANCE)
    .sort((a, b) => a.distance - b.distance || a.team.name.localeCompare(b.team.name))
    .map((entry) => entry.team);
}
