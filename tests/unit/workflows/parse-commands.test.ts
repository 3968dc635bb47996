import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadRoster } from '../../../src/core/data/load-roster.js';
import type { Roster } from '../../../src/core/data/types.js';
import { loadToolSchemas } from '../../../src/core/tools/tool-schema-loader.js';
import { WORKFLOW_TOOL_NAMES } from '../../../src/core/tools/workflow-tool-names.js';
import { parseCallCommand } from '../../../src/commands/workflows/parse-call.js';
import { parseTeamCommand } from '../../../src/commands/workflows/parse-team.js';
import { PACKAGE_ROOT } from '../../../src/app/package-root.js';

let roster: Roster;
beforeAll(async () => {
  const schemas = await loadToolSchemas(path.join(PACKAGE_ROOT, 'tools_schemas'));
  roster = await loadRoster({ rootDirectory: PACKAGE_ROOT, knownTools: new Set([...schemas.keys(), ...WORKFLOW_TOOL_NAMES]) });
});

const names = (parsed: ReturnType<typeof parseCallCommand>) => (parsed.ok ? parsed.participants.map((participant) => participant.name) : parsed.message);

describe('parseCallCommand', () => {
  it('splits names that contain the letter e on whitespace only (§6.1)', () => {
    const parsed = parseCallCommand(roster, '@geordi @spock "topic"');
    expect(parsed).toMatchObject({ ok: true, topic: 'topic', rounds: 2 });
    expect(names(parsed)).toEqual(['geordi', 'spock']);
    expect(names(parseCallCommand(roster, '@Geordi @Worf @Pike "Review the release"'))).toEqual(['geordi', 'worf', 'pike']);
  });

  it('accepts names with or without @, any case, by file name or aiName, and an unquoted topic', () => {
    const parsed = parseCallCommand(roster, 'SPOCK worf, OBrien should we cache sessions in Redis?');
    expect(names(parsed)).toEqual(['spock', 'worf', 'obrien']);
    expect(parsed).toMatchObject({ topic: 'should we cache sessions in Redis?' });
  });

  it('reads rounds=N anywhere and bounds it', () => {
    expect(parseCallCommand(roster, '@spock rounds=3 @worf "x"')).toMatchObject({ ok: true, rounds: 3 });
    expect(parseCallCommand(roster, '@spock @worf "x" rounds=1')).toMatchObject({ ok: true, rounds: 1, topic: 'x' });
    expect(parseCallCommand(roster, '@spock @worf rounds=0 x')).toMatchObject({ ok: false, message: expect.stringContaining('rounds must be') });
  });

  it('reads rounds with spaces around "=" and keeps it out of the topic', () => {
    expect(parseCallCommand(roster, '@spock @worf rounds = 3 cache sessions?')).toMatchObject({ ok: true, rounds: 3, topic: 'cache sessions?' });
    expect(parseCallCommand(roster, '@spock rounds =4 @worf "x"')).toMatchObject({ ok: true, rounds: 4, topic: 'x' });
    expect(parseCallCommand(roster, '@spock @worf "x" rounds= 1')).toMatchObject({ ok: true, rounds: 1, topic: 'x' });
    expect(parseCallCommand(roster, '@spock @worf rounds = 0 x')).toMatchObject({ ok: false, message: expect.stringContaining('rounds must be') });
    // A quoted "rounds = 3" is part of the topic, and "rounds" alone is just a word.
    expect(parseCallCommand(roster, '@spock @worf "rounds = 3"')).toMatchObject({ ok: true, rounds: 2, topic: 'rounds = 3' });
    expect(parseCallCommand(roster, '@spock @worf how many rounds of review?')).toMatchObject({ ok: true, rounds: 2, topic: 'how many rounds of review?' });
  });

  it('needs two participants, suggests near names, and needs a topic', () => {
    expect(parseCallCommand(roster, '@spock "x"')).toMatchObject({ ok: false, message: expect.stringContaining('at least two participants') });
    expect(parseCallCommand(roster, '@spock @geordy "x"')).toMatchObject({ ok: false, message: expect.stringContaining('Did you mean @Geordi') });
    expect(parseCallCommand(roster, '@spock @worf')).toMatchObject({ ok: false, message: expect.stringContaining('What should they discuss') });
  });
});

describe('parseTeamCommand', () => {
  it('keeps a quoted task out of the team name (§6.2)', () => {
    const parsed = parseTeamCommand(roster, 'dev_security "Add rate limiting to the login endpoint"');
    expect(parsed).toMatchObject({ ok: true, task: 'Add rate limiting to the login endpoint' });
    expect(parsed.ok && parsed.team.name).toBe('dev_security');
    expect(parsed.ok && parsed.members.map((member) => member.name)).toEqual(['geordi', 'worf', 'pike']);
  });

  it('takes an unquoted task and a differently cased team name', () => {
    const parsed = parseTeamCommand(roster, 'Dev-Security fix the login bug');
    expect(parsed).toMatchObject({ ok: true, task: 'fix the login bug' });
  });

  it('lists teams when empty, suggests on typos, asks for a task', () => {
    expect(parseTeamCommand(roster, '')).toMatchObject({ ok: false, list: true, message: expect.stringContaining('research_roundtable') });
    expect(parseTeamCommand(roster, 'qa_pipelin "x"')).toMatchObject({ ok: false, message: expect.stringContaining('Did you mean qa_pipeline') });
    expect(parseTeamCommand(roster, 'qa_pipeline')).toMatchObject({ ok: false, message: expect.stringContaining('What should QA Pipeline do') });
  });
});
