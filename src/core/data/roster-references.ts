import type { DataProblem } from './data-problem.js';
import { nearestMatches } from './edit-distance.js';
import type { AcceptanceCheck, Roster } from './types.js';

/** Where each entry came from, and every entry name that exists on disk (even in a file that failed validation). */
export interface RosterSources {
  files: { role: Map<string, string>; trait: Map<string, string>; character: Map<string, string>; team: Map<string, string> };
  existing: { role: Set<string>; trait: Set<string>; character: Set<string> };
}

/**
 * Checks what a schema cannot: references between files, tools against the registry, unique aiNames and
 * mode-specific team settings. A reference to an entry whose own file is broken is not reported again.
 */
export function checkRosterReferences(roster: Roster, sources: RosterSources, knownTools: ReadonlySet<string>): DataProblem[] {
  return [...checkRoles(roster, sources, knownTools), ...checkCharacters(roster, sources), ...checkTeams(roster, sources)];
}

function checkRoles(roster: Roster, sources: RosterSources, knownTools: ReadonlySet<string>): DataProblem[] {
  const problems: DataProblem[] = [];
  for (const role of roster.roles.values()) {
    const file = sources.files.role.get(role.name) ?? role.name;
    role.allowedTools.forEach((tool, index) => {
      if (!knownTools.has(tool)) problems.push({ file, field: `/allowedTools/${index}`, message: unknownToolMessage(tool, knownTools) });
    });
    (role.coreTools ?? []).forEach((tool, index) => {
      const field = `/coreTools/${index}`;
      if (!knownTools.has(tool)) problems.push({ file, field, message: unknownToolMessage(tool, knownTools) });
      else if (!role.allowedTools.includes(tool)) problems.push({ file, field, message: `"${tool}" is not in allowedTools.` });
    });
  }
  return problems;
}

function checkCharacters(roster: Roster, sources: RosterSources): DataProblem[] {
  const problems: DataProblem[] = [];
  const aiNameOwners = new Map<string, string>();
  const fileOf = (name: string): string => sources.files.character.get(name) ?? name;
  for (const character of roster.characters.values()) {
    const file = fileOf(character.name);
    character.roles.forEach((role, index) => {
      if (!sources.existing.role.has(role)) {
        problems.push({ file, field: `/roles/${index}`, message: missingMessage('role', role, sources.existing.role) });
      }
    });
    if (!character.roles.includes(character.activeRole)) {
      problems.push({ file, field: '/activeRole', message: `"${character.activeRole}" is not one of the character's roles (${character.roles.join(', ')}).` });
    }
    if (!sources.existing.trait.has(character.trait)) {
      problems.push({ file, field: '/trait', message: missingMessage('trait', character.trait, sources.existing.trait) });
    }
    const key = character.aiName.toLowerCase();
    const owner = aiNameOwners.get(key);
    if (owner !== undefined) {
      problems.push({
        file,
        field: '/aiName',
        message: `"${character.aiName}" is already the aiName of ${fileOf(owner)} (aiNames are compared ignoring case).`,
      });
    } else {
      aiNameOwners.set(key, character.name);
    }
    // A mention is matched on file names and aiNames alike, so one character's aiName must not be another's id.
    if (key !== character.name && sources.existing.character.has(key)) {
      problems.push({
        file,
        field: '/aiName',
        message: `"${character.aiName}" is the name of another character (${fileOf(key)}); mentions would be ambiguous.`,
      });
    }
  }
  return problems;
}

function checkTeams(roster: Roster, sources: RosterSources): DataProblem[] {
  const problems: DataProblem[] = [];
  const characters = sources.existing.character;
  for (const team of roster.teams.values()) {
    const file = sources.files.team.get(team.name) ?? team.name;
    const report = (field: string, message: string): void => {
      problems.push({ file, field, message });
    };
    const checkMember = (name: string, field: string): void => {
      if (!characters.has(name)) report(field, missingMessage('character', name, characters));
      else if (!team.members.includes(name)) report(field, `"${name}" must be one of the team's members (${team.members.join(', ')}).`);
    };
    team.members.forEach((member, index) => {
      if (!characters.has(member)) report(`/members/${index}`, missingMessage('character', member, characters));
    });
    if (team.orchestrator !== undefined) checkMember(team.orchestrator, '/orchestrator');
    else if (team.mode === 'orchestrated') report('/orchestrator', 'is required for an orchestrated team (the member who routes each turn).');
    if (team.stations !== undefined && team.mode !== 'pipeline') report('/stations', 'are only used by pipeline teams.');
    if (team.discussionRounds !== undefined && team.mode !== 'hybrid') report('/discussionRounds', 'is only used by hybrid teams.');
    if (team.voting !== undefined && team.mode !== 'hybrid') report('/voting', 'is only used by hybrid teams.');
    checkAcceptance(team.acceptance, '/acceptance', report);
    team.stations?.forEach((station, index) => {
      checkMember(station.member, `/stations/${index}/member`);
      checkAcceptance(station.acceptance, `/stations/${index}/acceptance`, report);
    });
  }
  return problems;
}

function checkAcceptance(checks: AcceptanceCheck[] | undefined, base: string, report: (field: string, message: string) => void): void {
  checks?.forEach((check, index) => {
    if (check.type === 'command') return;
    const segments = check.path.split(/[\\/]/);
    if (check.path.startsWith('/') || /^[A-Za-z]:/.test(check.path) || segments.includes('..')) {
      report(`${base}/${index}/path`, `"${check.path}" must be a relative path inside the workspace.`);
    }
  });
}

function missingMessage(kind: string, name: string, existing: Iterable<string>): string {
  const near = nearestMatches(name, existing);
  return `names no existing ${kind}: "${name}"${near.length > 0 ? ` (did you mean ${near.slice(0, 3).join(', ')}?)` : ''}.`;
}

function unknownToolMessage(tool: string, knownTools: ReadonlySet<string>): string {
  const near = nearestMatches(tool, knownTools);
  return `"${tool}" is not a known tool${near.length > 0 ? ` (did you mean ${near.slice(0, 3).join(', ')}?)` : ''}.`;
}
