import type { Character, Roster } from '../../../../src/core/data/types.js';

function character(name: string, role: string, description: string): Character {
  return {
    name,
    aiName: name.charAt(0).toUpperCase() + name.slice(1),
    displayName: name.charAt(0).toUpperCase() + name.slice(1),
    description,
    roles: [role],
    activeRole: role,
    trait: 'plain',
    avatar: ':robot_face:',
  };
}

/** A roster with the characters the /goal tests name: una, geordi, data, worf, pike, data_analyst. */
export function goalRoster(): Roster {
  const characters = [
    character('una', 'architect', 'Designs module layouts and contracts.'),
    character('geordi', 'developer', 'Writes and fixes code.'),
    character('data', 'tech_writer', 'Writes documentation.'),
    character('worf', 'security_auditor', 'Audits code for vulnerabilities.'),
    character('pike', 'supervisor', 'Reviews and accepts work.'),
    character('data_analyst', 'data_analyst', 'Crunches numbers.'),
  ];
  return {
    roles: new Map(),
    traits: new Map(),
    characters: new Map(characters.map((entry) => [entry.name, entry])),
    teams: new Map(),
  };
}
