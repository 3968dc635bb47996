import { describe, expect, it } from 'vitest';
import { findCharacter, findTeam, suggestCharacters, suggestTeams } from '../../../src/core/data/character-lookup.js';
import type { Character, Roster, Team } from '../../../src/core/data/types.js';

function character(name: string, aiName: string): Character {
  return {
    name,
    aiName,
    displayName: aiName,
    description: `${aiName}.`,
    roles: ['developer'],
    activeRole: 'developer',
    trait: 'plain',
    avatar: ':robot_face:',
  };
}

function team(name: string): Team {
  return { name, displayName: name, description: 'A team.', members: ['geordi', 'worf'], mode: 'round-robin' };
}

const roster: Roster = {
  roles: new Map(),
  traits: new Map(),
  characters: new Map([
    ['geordi', character('geordi', 'Geordi')],
    ['worf', character('worf', 'Worf')],
    ['doctor', character('doctor', 'EMH')],
    ['data', character('data', 'Data')],
    ['dax', character('dax', 'Dax')],
  ]),
  teams: new Map([
    ['dev_security', team('dev_security')],
    ['ops_squad', team('ops_squad')],
  ]),
};

describe('findCharacter', () => {
  it.each(['geordi', '@Geordi', 'GEORDI', '  @geordi '])('finds geordi from %j', (text) => {
    expect(findCharacter(roster, text)?.name).toBe('geordi');
  });

  it('finds a character by an aiName that differs from its file name', () => {
    expect(findCharacter(roster, '@emh')?.name).toBe('doctor');
    expect(findCharacter(roster, 'Doctor')?.name).toBe('doctor');
  });

  it('returns undefined for unknown or empty names', () => {
    expect(findCharacter(roster, 'picard')).toBeUndefined();
    expect(findCharacter(roster, '@')).toBeUndefined();
    expect(findCharacter(roster, 'geordi la forge')).toBeUndefined();
  });
});

describe('suggestCharacters', () => {
  it('suggests characters within two edits, nearest first', () => {
    expect(suggestCharacters(roster, 'goerdi').map((found) => found.name)).toEqual(['geordi']);
    expect(suggestCharacters(roster, '@Wharf').map((found) => found.name)).toEqual(['worf']);
    expect(suggestCharacters(roster, 'dat').map((found) => found.name)).toEqual(['data', 'dax']);
  });

  it('matches suggestions on aiNames too, and suggests nothing for far-off text', () => {
    expect(suggestCharacters(roster, 'emm').map((found) => found.name)).toEqual(['doctor']);
    expect(suggestCharacters(roster, 'picard')).toEqual([]);
    expect(suggestCharacters(roster, '')).toEqual([]);
  });
});

describe('findTeam and suggestTeams', () => {
  it('finds a team ignoring case and accepting - for _', () => {
    expect(findTeam(roster, 'DEV_SECURITY')?.name).toBe('dev_security');
    expect(findTeam(roster, 'dev-security')?.name).toBe('dev_security');
    expect(findTeam(roster, 'dev')).toBeUndefined();
  });

  it('suggests teams within two edits', () => {
    expect(suggestTeams(roster, 'ops_sqad').map((found) => found.name)).toEqual(['ops_squad']);
    expect(suggestTeams(roster, 'release')).toEqual([]);
  });
});
