import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadRoster } from '../../../src/core/data/load-roster.js';
import type { Roster } from '../../../src/core/data/types.js';
import { KNOWN_TOOLS } from './roster-fixture.js';

const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const MEMORY_TOOLS = ['save_memory', 'recall_memory', 'update_memory', 'forget_memory'];

describe('the shipped roster', () => {
  let roster: Roster;
  beforeAll(async () => {
    roster = await loadRoster({ rootDirectory: repositoryRoot, knownTools: KNOWN_TOOLS });
  });

  it('loads every file without a problem and meets the minimum counts', () => {
    expect(roster.roles.size).toBeGreaterThanOrEqual(13);
    expect(roster.traits.size).toBeGreaterThanOrEqual(6);
    expect(roster.characters.size).toBeGreaterThanOrEqual(12);
    expect(roster.teams.size).toBeGreaterThanOrEqual(5);
  });

  it('has the roles the design names', () => {
    for (const role of [
      'developer',
      'sysadmin',
      'security_auditor',
      'supervisor',
      'architect',
      'researcher',
      'tech_writer',
      'data_analyst',
      'devops_engineer',
      'translator',
      'reviewer',
      'tester',
      'assistant',
    ]) {
      expect(roster.roles.has(role), role).toBe(true);
    }
  });

  it('uses every role in some character', () => {
    const used = new Set([...roster.characters.values()].flatMap((character) => character.roles));
    expect([...roster.roles.keys()].filter((role) => !used.has(role))).toEqual([]);
  });

  it('gives every role a real prompt, memory tools, report_status and a short core set', () => {
    for (const role of roster.roles.values()) {
      const lines = role.systemPrompt.split('\n').length;
      expect(lines, role.name).toBeGreaterThanOrEqual(6);
      expect(lines, role.name).toBeLessThanOrEqual(15);
      expect(role.allowedTools, role.name).toEqual(expect.arrayContaining([...MEMORY_TOOLS, 'report_status']));
      expect(role.coreTools?.length ?? 0, role.name).toBeGreaterThanOrEqual(4);
      expect(role.coreTools?.length ?? 0, role.name).toBeLessThanOrEqual(8);
    }
  });

  it('fits tools to roles', () => {
    const researcher = roster.roles.get('researcher')?.allowedTools ?? [];
    expect(researcher).toEqual(expect.arrayContaining(['web_search', 'browse_url']));
    expect(researcher).not.toContain('write_file');
    expect(researcher).not.toContain('delete_file');
    expect(roster.roles.get('security_auditor')?.allowedTools).toEqual(expect.arrayContaining(['audit_code', 'read_file', 'grep_search', 'execute_command']));
    expect(roster.roles.get('supervisor')?.allowedTools).toEqual(
      expect.arrayContaining(['route_next', 'cast_vote', 'report_status', 'post_note', 'read_notes']),
    );
  });

  it('gives every trait a style prompt of two to four lines', () => {
    for (const trait of roster.traits.values()) {
      const lines = trait.stylePrompt.split('\n').length;
      expect(lines, trait.name).toBeGreaterThanOrEqual(2);
      expect(lines, trait.name).toBeLessThanOrEqual(4);
    }
  });

  it('gives each character an avatar, a capitalised aiName and a description for the planner', () => {
    for (const character of roster.characters.values()) {
      expect(character.avatar, character.name).toMatch(/\S/);
      expect(character.aiName[0], character.name).toMatch(/[A-Z]/);
      expect(character.description.length, character.name).toBeGreaterThan(40);
    }
    expect(roster.characters.get('geordi')).toMatchObject({ aiName: 'Geordi', activeRole: 'developer', avatar: ':wrench:' });
  });

  it('has the named characters with their roles, and a multi-role doctor', () => {
    const expected = { geordi: 'developer', worf: 'security_auditor', pike: 'supervisor', spock: 'researcher', una: 'architect', data: 'tech_writer' };
    for (const [name, role] of Object.entries(expected)) expect(roster.characters.get(name)?.activeRole, name).toBe(role);
    const doctor = roster.characters.get('doctor');
    expect(doctor?.roles.length).toBeGreaterThanOrEqual(2);
    expect(roster.roles.get(doctor?.activeRole ?? '')?.allowedTools).toContain('switch_skill');
  });

  it('has dev_security = geordi, worf, pike led by pike, and every team mode', () => {
    expect(roster.teams.get('dev_security')).toMatchObject({ members: ['geordi', 'worf', 'pike'], mode: 'orchestrated', orchestrator: 'pike' });
    expect(new Set([...roster.teams.values()].map((team) => team.mode))).toEqual(new Set(['orchestrated', 'round-robin', 'pipeline', 'hybrid']));
    const pipeline = roster.teams.get('review_pipeline');
    expect(pipeline?.stations?.map((station) => station.member)).toEqual(['geordi', 'troi', 'data']);
    expect(pipeline?.stations?.at(-1)?.acceptance?.length).toBeGreaterThan(0);
    expect(roster.teams.get('release_council')).toMatchObject({ mode: 'hybrid', voting: true, discussionRounds: 1 });
  });
});
