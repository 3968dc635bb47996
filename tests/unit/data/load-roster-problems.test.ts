import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataFileError } from '../../../src/core/errors.js';
import { loadRoster } from '../../../src/core/data/load-roster.js';
import type { Roster } from '../../../src/core/data/types.js';
import { KNOWN_TOOLS, removeRoster, validRosterFiles, writeRoster } from './roster-fixture.js';

const roots: string[] = [];
afterEach(async () => {
  await Promise.all(roots.splice(0).map(removeRoster));
});

async function load(changes: Record<string, unknown>, extraRoleDirectories?: string[]): Promise<Roster> {
  const root = await writeRoster({ ...validRosterFiles(), ...changes });
  roots.push(root);
  return loadRoster({ rootDirectory: root, knownTools: KNOWN_TOOLS, extraRoleDirectories });
}

async function problemsOf(changes: Record<string, unknown>): Promise<DataFileError['problems']> {
  const error = await load(changes).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(DataFileError);
  return (error as DataFileError).problems;
}

const base = validRosterFiles();
const withField = (file: string, field: string, value: unknown): Record<string, unknown> => ({
  [file]: { ...(base[file] as Record<string, unknown>), [field]: value },
});

describe('loadRoster', () => {
  it('loads a valid roster, naming entries after their files and joining prompt lines', async () => {
    const roster = await load({});
    expect([...roster.characters.keys()].sort()).toEqual(['geordi', 'pike', 'worf']);
    expect(roster.roles.get('developer')?.systemPrompt).toBe('You write code.\nRun the tests.');
    expect(roster.teams.get('x')).toEqual({
      name: 'x',
      displayName: 'X',
      description: 'A test team.',
      members: ['geordi', 'worf', 'pike'],
      mode: 'orchestrated',
      orchestrator: 'pike',
    });
  });

  it('reports invalid JSON with its line and column', async () => {
    const problems = await problemsOf({ 'traits/plain.json': '{\n  "displayName": "Plain",\n  "description": }\n' });
    expect(problems).toEqual([{ file: 'traits/plain.json', field: '/', message: expect.stringMatching(/line 3, column 18/) }]);
  });

  it('reports a missing required field at its pointer', async () => {
    const role = { ...(base['roles/supervisor.json'] as Record<string, unknown>) };
    delete role.systemPrompt;
    const problems = await problemsOf({ 'roles/supervisor.json': role });
    expect(problems).toContainEqual({ file: 'roles/supervisor.json', field: '/systemPrompt', message: 'is required.' });
  });

  it('reports a wrong enum with the allowed values', async () => {
    const problems = await problemsOf(withField('teams/x.json', 'mode', 'anarchy'));
    expect(problems).toEqual([{ file: 'teams/x.json', field: '/mode', message: 'must be one of: orchestrated, round-robin, pipeline, hybrid.' }]);
    const effort = await problemsOf(withField('roles/developer.json', 'reasoningEffort', 'high'));
    expect(effort).toEqual([{ file: 'roles/developer.json', field: '/reasoningEffort', message: 'must be one of: none, low, medium, xhigh.' }]);
  });

  it('reports unknown fields and a bad acceptance check type', async () => {
    const problems = await problemsOf({
      ...withField('characters/worf.json', 'colour', 'red'),
      ...withField('teams/x.json', 'acceptance', [
        { type: 'file-exists', path: 'a.txt' },
        { type: 'shell', command: 'true' },
      ]),
    });
    expect(problems).toContainEqual({ file: 'characters/worf.json', field: '/colour', message: 'is not a known field.' });
    expect(problems).toContainEqual({
      file: 'teams/x.json',
      field: '/acceptance/1/type',
      message: 'must be one of: command, file-exists, json-valid.',
    });
    expect(problems).toHaveLength(2);
  });

  it('reports a team naming a missing character at its index', async () => {
    const problems = await problemsOf(withField('teams/x.json', 'members', ['geordi', 'geordy', 'pike']));
    expect(problems).toEqual([{ file: 'teams/x.json', field: '/members/1', message: expect.stringContaining('"geordy" (did you mean geordi?)') }]);
  });

  it('reports a role allowing an unknown tool, and a core tool outside allowedTools', async () => {
    const problems = await problemsOf({
      ...withField('roles/developer.json', 'allowedTools', ['read_file', 'reed_file', 'report_status']),
    });
    expect(problems).toContainEqual({
      file: 'roles/developer.json',
      field: '/allowedTools/1',
      message: '"reed_file" is not a known tool (did you mean read_file?).',
    });
    const core = await problemsOf(withField('roles/supervisor.json', 'coreTools', ['route_next', 'cast_vote']));
    expect(core).toEqual([{ file: 'roles/supervisor.json', field: '/coreTools/1', message: '"cast_vote" is not in allowedTools.' }]);
  });

  it('reports an activeRole that is not one of the roles, and a missing trait', async () => {
    const problems = await problemsOf({
      ...withField('characters/pike.json', 'activeRole', 'developer'),
      ...withField('characters/worf.json', 'trait', 'grumpy'),
    });
    expect(problems).toContainEqual({ file: 'characters/pike.json', field: '/activeRole', message: expect.stringContaining('not one of') });
    expect(problems).toContainEqual({ file: 'characters/worf.json', field: '/trait', message: expect.stringContaining('"grumpy"') });
  });

  it('reports an aiName used twice, ignoring case', async () => {
    const problems = await problemsOf(withField('characters/worf.json', 'aiName', 'GEORDI'));
    expect(problems).toContainEqual({ file: 'characters/worf.json', field: '/aiName', message: expect.stringContaining('characters/geordi.json') });
  });

  it('reports a name field that disagrees with the file name, and a file name that is not an id', async () => {
    const problems = await problemsOf({
      ...withField('characters/geordi.json', 'name', 'laforge'),
      'traits/Loud-Voice.json': { displayName: 'Loud', description: 'Loud.', stylePrompt: 'Shout.' },
    });
    expect(problems).toContainEqual({ file: 'characters/geordi.json', field: '/name', message: expect.stringContaining('"laforge"') });
    expect(problems).toContainEqual({ file: 'traits/Loud-Voice.json', field: '/', message: expect.stringContaining('lower case') });
    // geordi's file is broken, but the team naming geordi is not reported again for it.
    expect(problems.filter((problem) => problem.file === 'teams/x.json')).toEqual([]);
  });

  it('checks team orchestration: required for orchestrated, must be a member', async () => {
    const team = { ...(base['teams/x.json'] as Record<string, unknown>) };
    delete team.orchestrator;
    expect(await problemsOf({ 'teams/x.json': team })).toEqual([
      { file: 'teams/x.json', field: '/orchestrator', message: expect.stringContaining('required') },
    ]);
    const outsider = await problemsOf(withField('teams/x.json', 'members', ['geordi', 'worf']));
    expect(outsider).toEqual([{ file: 'teams/x.json', field: '/orchestrator', message: expect.stringContaining("team's members") }]);
  });

  it('checks pipeline stations and keeps acceptance paths inside the workspace', async () => {
    const problems = await problemsOf({
      'teams/x.json': {
        displayName: 'X',
        description: 'Line.',
        members: ['geordi', 'worf'],
        mode: 'pipeline',
        stations: [{ member: 'geordi' }, { member: 'pike', acceptance: [{ type: 'json-valid', path: '../out.json' }] }],
      },
    });
    expect(problems).toEqual([
      { file: 'teams/x.json', field: '/stations/1/member', message: expect.stringContaining("team's members") },
      { file: 'teams/x.json', field: '/stations/1/acceptance/0/path', message: expect.stringContaining('inside the workspace') },
    ]);
  });

  it('reports several problems from several files together in one error', async () => {
    const problems = await problemsOf({
      'roles/developer.json': '{ "displayName": ',
      ...withField('characters/pike.json', 'avatar', 'a picture'),
      ...withField('teams/x.json', 'members', ['geordi', 'nobody', 'pike']),
    });
    expect(problems.map((problem) => `${problem.file} ${problem.field}`)).toEqual([
      'roles/developer.json /',
      'characters/pike.json /avatar',
      'teams/x.json /members/1',
    ]);
    // developer.json is broken, not missing: the characters using it get no second complaint.
    expect(problems.some((problem) => problem.field === '/roles/0')).toBe(false);
  });

  it('accepts unicode and URL avatars', async () => {
    const roster = await load({
      ...withField('characters/geordi.json', 'avatar', '🔧'),
      ...withField('characters/worf.json', 'avatar', 'https://example.com/worf.png'),
    });
    expect(roster.characters.get('geordi')?.avatar).toBe('🔧');
  });

  it('reads runtime roles from extra folders, and skips one that shadows a shipped role with a warning naming both files', async () => {
    const root = await writeRoster({
      ...validRosterFiles(),
      'runtime-roles/poet.json': { displayName: 'Poet', description: 'Rhymes.', systemPrompt: 'Rhyme.', allowedTools: ['report_status'] },
    });
    roots.push(root);
    const safeTools = new Set(['report_status']);
    const roster = await loadRoster({ rootDirectory: root, knownTools: KNOWN_TOOLS, safeTools, extraRoleDirectories: ['runtime-roles', 'not-there-yet'] });
    expect(roster.roles.get('poet')).toMatchObject({ systemPrompt: 'Rhyme.', allowedTools: ['report_status'] });

    const shadowRoot = await writeRoster({ ...validRosterFiles(), 'runtime-roles/developer.json': base['roles/developer.json'] });
    roots.push(shadowRoot);
    const warnings: unknown[] = [];
    const shadowed = await loadRoster({
      rootDirectory: shadowRoot,
      knownTools: KNOWN_TOOLS,
      extraRoleDirectories: [path.join(shadowRoot, 'runtime-roles')],
      onWarning: (problem) => warnings.push(problem),
    });
    expect(shadowed.roles.get('developer')?.allowedTools).toEqual((base['roles/developer.json'] as { allowedTools: string[] }).allowedTools);
    expect(warnings).toEqual([{ file: 'runtime-roles/developer.json', field: '/', message: expect.stringContaining('clashes with roles/developer.json') }]);
  });

  it('reports a missing data folder', async () => {
    const root = await writeRoster(validRosterFiles());
    roots.push(root);
    await removeRoster(path.join(root, 'teams'));
    await expect(loadRoster({ rootDirectory: root, knownTools: KNOWN_TOOLS })).rejects.toMatchObject({
      problems: [{ file: 'teams/', field: '/', message: 'The folder is missing.' }],
    });
  });
});
