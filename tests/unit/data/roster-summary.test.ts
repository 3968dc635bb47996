import { describe, expect, it } from 'vitest';
import { characterCatalogue, teamCatalogue } from '../../../src/core/data/roster-summary.js';
import type { Roster } from '../../../src/core/data/types.js';

const roster: Roster = {
  roles: new Map(),
  traits: new Map(),
  characters: new Map([
    [
      'worf',
      {
        name: 'worf',
        aiName: 'Worf',
        displayName: 'Worf',
        description: 'Finds\nvulnerabilities.',
        roles: ['security_auditor'],
        activeRole: 'security_auditor',
        trait: 'skeptical',
        avatar: ':shield:',
      },
    ],
    [
      'doctor',
      {
        name: 'doctor',
        aiName: 'Doctor',
        displayName: 'The Doctor',
        description: 'Helps with anything.',
        roles: ['researcher', 'assistant'],
        activeRole: 'assistant',
        trait: 'mentor',
        avatar: ':stethoscope:',
      },
    ],
  ]),
  teams: new Map([
    [
      'dev_security',
      {
        name: 'dev_security',
        displayName: 'Dev & Security',
        description: 'Build and check.',
        members: ['geordi', 'worf', 'pike'],
        mode: 'orchestrated',
        orchestrator: 'pike',
      },
    ],
    ['crew', { name: 'crew', displayName: 'Crew', description: 'Take turns.', members: ['worf', 'doctor'], mode: 'round-robin' }],
  ]),
};

describe('characterCatalogue', () => {
  it('writes one line per character in name order, active role first, descriptions on one line', () => {
    expect(characterCatalogue(roster)).toBe(
      '@doctor — The Doctor (assistant, researcher): Helps with anything.\n' + '@worf — Worf (security_auditor): Finds vulnerabilities.',
    );
  });
});

describe('teamCatalogue', () => {
  it('writes one line per team with mode, leader and members', () => {
    expect(teamCatalogue(roster)).toBe(
      'crew — Crew [round-robin]: @worf, @doctor — Take turns.\n' +
        'dev_security — Dev & Security [orchestrated, led by @pike]: @geordi, @worf, @pike — Build and check.',
    );
  });
});
