/**
 * `/team <team> <task>` with the task quoted or not; `/team` alone lists the teams. The team name
 * is the first word only: the task is never part of it (design §6.2).
 */
import type { Character, Roster, Team } from '../../core/data/types.js';
import { findCharacter, findTeam, suggestTeams } from '../../core/data/character-lookup.js';
import { teamCatalogue } from '../../core/data/roster-summary.js';
import { tokenizeCommand } from './command-tokens.js';

export type ParsedTeam = { ok: true; team: Team; members: Character[]; task: string } | { ok: false; message: string; list?: boolean };

const USAGE = 'Usage: `/team <team> <task>`, e.g. `/team dev_security "Add rate limiting to the login endpoint"`.';

export function parseTeamCommand(roster: Roster, text: string): ParsedTeam {
  const tokens = tokenizeCommand(text);
  const first = tokens[0];
  if (!first) return { ok: false, list: true, message: `Teams:\n${teamCatalogue(roster)}\n${USAGE}` };
  const team = findTeam(roster, first.text);
  if (!team) {
    const suggestions = suggestTeams(roster, first.text).map((candidate) => candidate.name);
    const hint = suggestions.length > 0 ? ` Did you mean ${suggestions.join(' or ')}?` : ` Teams: ${[...roster.teams.keys()].join(', ')}.`;
    return { ok: false, message: `Unknown team "${first.text}".${hint}` };
  }
  const task = tokens
    .slice(1)
    .map((token) => token.text)
    .join(' ')
    .trim();
  if (task === '') return { ok: false, message: `What should ${team.displayName} do? ${USAGE}` };
  const members = team.members.map((name) => findCharacter(roster, name));
  const missing = team.members.filter((_, position) => !members[position]);
  if (missing.length > 0) return { ok: false, message: `Team ${team.name} names unknown characters: ${missing.join(', ')}.` };
  return { ok: true, team, members: members as Character[], task };
}
