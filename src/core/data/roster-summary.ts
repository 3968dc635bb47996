import type { Roster } from './types.js';

/**
 * One line per character, `@name — Display Name (role): description`, in name order: what the /goal
 * planner reads to pick agents. A character with several roles lists its active role first.
 */
export function characterCatalogue(roster: Roster): string {
  return [...roster.characters.values()]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((character) => {
      const roles = [character.activeRole, ...character.roles.filter((role) => role !== character.activeRole)];
      return `@${character.name} — ${character.displayName} (${roles.join(', ')}): ${oneLine(character.description)}`;
    })
    .join('\n');
}

/** One line per team, `name — Display Name [mode, led by @x]: @a, @b, @c — description`, in name order. */
export function teamCatalogue(roster: Roster): string {
  return [...roster.teams.values()]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((team) => {
      const lead = team.orchestrator ? `, led by @${team.orchestrator}` : '';
      const members = team.members.map((member) => `@${member}`).join(', ');
      return `${team.name} — ${team.displayName} [${team.mode}${lead}]: ${members} — ${oneLine(team.description)}`;
    })
    .join('\n');
}

// Descriptions are read as one line each; a stray newline would make the planner see two entries.
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
