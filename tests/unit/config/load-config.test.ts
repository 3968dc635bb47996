import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config/load-config.js';
import { createJsonLogger } from '../../../src/app/json-logger.js';
import { createSecretMasker } from '../../../src/core/safety/secret-mask.js';

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(path.join(os.tmpdir(), 'tsuka-config-'));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

const load = (environment: NodeJS.ProcessEnv) => loadConfig({ environment, workingDirectory: directory, rootDirectory: directory });

function problemsOf(environment: NodeJS.ProcessEnv): string[] {
  try {
    load(environment);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('loadConfig', () => {
  it('uses the documented defaults', () => {
    const config = load({});
    expect(config.httpPort).toBe(3000);
    expect(config.httpHost).toBe('127.0.0.1');
    expect(config.approvalTimeoutMs).toBe(600_000);
    expect(config.dataDirectory).toBe(path.join(directory, 'data'));
    expect(config.workspace).toBe(path.join(directory, 'data', 'workspace'));
    expect(config.slack).toBeUndefined();
    expect(config.discord).toBeUndefined();
    expect(config.maxToolRounds).toBe(15);
    expect(config.userEventsPerMinute).toBe(20);
    expect(load({ TSUKA_USER_EVENTS_PER_MINUTE: '120' }).userEventsPerMinute).toBe(120);
    expect(problemsOf({ TSUKA_USER_EVENTS_PER_MINUTE: '0' })[0]).toMatch(/TSUKA_USER_EVENTS_PER_MINUTE="0" is not valid: use a whole number from 1 to 10000/);
    expect(config.llm.tier).toBeUndefined();
    expect(load({ TSUKA_LLM_TIER: 'large' }).llm.tier).toBe('LARGE');
    expect(problemsOf({ TSUKA_LLM_TIER: 'huge' })[0]).toMatch(/TSUKA_LLM_TIER="HUGE" is not valid: use SMALL, MEDIUM or LARGE/);
    // Issue 23: unset asks the server whether the model sees images; 1/0 says it.
    expect(config.llm.vision).toBeUndefined();
    expect(load({ TSUKA_LLM_VISION: '1' }).llm.vision).toBe(true);
    expect(load({ TSUKA_LLM_VISION: '0' }).llm.vision).toBe(false);
    expect(problemsOf({ TSUKA_LLM_VISION: 'maybe' })[0]).toMatch(/TSUKA_LLM_VISION="maybe" is not valid: use 1 or 0/);
  });

  it('reports every bad value at once, one line each, naming the setting and the fix', () => {
    const problems = problemsOf({
      TSUKA_HTTP_PORT: 'abc',
      SLACK_BOT_TOKEN: 'not-a-token',
      TSUKA_ADMINS: 'U123',
      TSUKA_LLM_BASE_URL: 'localhost:11434',
      TSUKA_PLAIN_MENTIONS: 'maybe',
      TSUKA_LOG_LEVEL: 'loud',
    });
    expect(problems).toHaveLength(7);
    expect(problems.find((p) => p.startsWith('TSUKA_HTTP_PORT'))).toMatch(/whole number/);
    expect(problems.find((p) => p.startsWith('SLACK_BOT_TOKEN must start'))).toMatch(/xoxb-/);
    expect(problems.find((p) => p.includes('neither SLACK_APP_TOKEN'))).toBeDefined();
    expect(problems.find((p) => p.startsWith('TSUKA_ADMINS'))).toMatch(/slack:U0123/);
    expect(problems.find((p) => p.startsWith('TSUKA_LLM_BASE_URL'))).toMatch(/http:\/\/127\.0\.0\.1:11434\/v1/);
    expect(problems.find((p) => p.startsWith('TSUKA_PLAIN_MENTIONS'))).toMatch(/1 or 0/);
    expect(problems.find((p) => p.startsWith('TSUKA_LOG_LEVEL'))).toMatch(/debug, info/);
    for (const problem of problems) expect(problem).not.toMatch(/\n|at .*\.ts/);
  });

  it('reads .env and tsuka.config.json, environment first, secrets only from the environment', async () => {
    await writeFile(path.join(directory, '.env'), 'SLACK_BOT_TOKEN=xoxb-from-dotenv\nSLACK_APP_TOKEN=xapp-from-dotenv\n');
    await writeFile(path.join(directory, 'tsuka.config.json'), JSON.stringify({ httpPort: 4000, approvalTimeoutS: 30, defaultCharacter: 'Worf' }));
    const config = load({ TSUKA_HTTP_PORT: '5000' });
    expect(config.slack?.botToken).toBe('xoxb-from-dotenv');
    expect(config.httpPort).toBe(5000);
    expect(config.approvalTimeoutMs).toBe(30_000);
    expect(config.defaultCharacter).toBe('worf');
    await writeFile(path.join(directory, 'tsuka.config.json'), JSON.stringify({ slackBotToken: 'xoxb-in-file' }));
    expect(problemsOf({}).join('\n')).toMatch(/tsuka\.config\.json \/ "slackBotToken": must NOT have additional properties/);
  });

  it('refuses a workspace that would let agents read the bot state or its .env', async () => {
    expect(problemsOf({ TSUKA_WORKSPACE: directory, TSUKA_DATA_DIR: path.join(directory, 'data') })[0]).toMatch(/contains TSUKA_DATA_DIR/);
    await writeFile(path.join(directory, '.env'), 'SLACK_BOT_TOKEN=xoxb-1\nSLACK_APP_TOKEN=xapp-1\n');
    expect(problemsOf({ TSUKA_WORKSPACE: directory, TSUKA_DATA_DIR: '/tmp/elsewhere-data' }).join('\n')).toMatch(/contains .*\.env with the bot's secrets/);
    expect(problemsOf({ TSUKA_WORKSPACE: path.join(directory, 'project'), TSUKA_DATA_DIR: path.join(directory, 'data') })).toEqual([]);
  });

  it('reads the channels section: per-channel workspace, characters and rules; a string stays the allowlist; bad values are named', async () => {
    await writeFile(
      path.join(directory, 'tsuka.config.json'),
      JSON.stringify({
        dangerousApproval: 'admin',
        channels: { '#sec-private': { workspace: 'sec', defaultCharacter: 'Worf', characters: ['@worf', 'pike'], threadReplies: 'everyone' }, C0GEN: {} },
      }),
    );
    const config = load({ TSUKA_CHANNELS: 'C0GEN' });
    expect(config.channels).toEqual(['C0GEN']);
    expect(config.dangerousApproval).toBe('admin');
    expect(config.threadReplies).toBe('starter');
    expect(config.channelPolicies).toEqual([
      { key: '#sec-private', workspace: path.join(directory, 'sec'), defaultCharacter: 'worf', characters: ['worf', 'pike'], threadReplies: 'everyone' },
      { key: 'C0GEN' },
    ]);
    await writeFile(path.join(directory, 'tsuka.config.json'), JSON.stringify({ channels: 'C1,C2' }));
    expect(load({}).channels).toEqual(['C1', 'C2']);
    expect(load({}).channelPolicies).toEqual([]);
    await writeFile(path.join(directory, 'tsuka.config.json'), JSON.stringify({ channels: { C1: { dangerousApproval: 'anyone' } } }));
    expect(problemsOf({}).join('\n')).toMatch(/tsuka\.config\.json \/channels\/C1\/dangerousApproval/);
    await writeFile(path.join(directory, 'tsuka.config.json'), JSON.stringify({ channels: { C1: { workspace: '.' } } }));
    expect(problemsOf({ TSUKA_DATA_DIR: path.join(directory, 'data') }).join('\n')).toMatch(/channels\."C1"\.workspace="\." contains the data folder/);
    expect(problemsOf({ TSUKA_DANGEROUS_APPROVAL: 'nobody' }).join('\n')).toMatch(
      /TSUKA_DANGEROUS_APPROVAL="nobody" is not valid: use one of other, admin, requester/,
    );
  });

  it('reports a config file that is not JSON', async () => {
    await writeFile(path.join(directory, 'tsuka.config.json'), '{ "httpPort": 30,, }');
    expect(problemsOf({})[0]).toMatch(/tsuka\.config\.json is not valid JSON/);
  });
});

describe('the JSON logger', () => {
  it('writes one JSON line per entry, filters by level and never logs a secret value', () => {
    const lines: string[] = [];
    const environment = { SLACK_BOT_TOKEN: 'xoxb-123-456-abcdefabcdef' };
    const logger = createJsonLogger({ level: 'info', maskSecrets: createSecretMasker(environment), write: (line) => lines.push(line) });
    logger.debug('hidden');
    logger.child({ runId: 'r1' }).error('call failed', { error: new Error('token xoxb-123-456-abcdefabcdef was rejected', { cause: new Error('401') }) });
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0]!);
    expect(entry).toMatchObject({ level: 'error', message: 'call failed', runId: 'r1' });
    expect(entry.error.cause.message).toBe('401');
    expect(lines[0]).not.toContain('xoxb-123-456-abcdefabcdef');
  });

  it('masks a secret that contains characters JSON escapes', () => {
    const lines: string[] = [];
    const secret = 'pa"ss\\word-with-quote';
    const logger = createJsonLogger({ level: 'info', maskSecrets: createSecretMasker({ DB_PASSWORD: secret }), write: (line) => lines.push(line) });
    logger.info('connecting', { detail: `password=${secret}` });
    expect(JSON.parse(lines[0]!).detail).not.toContain(secret);
    expect(JSON.parse(lines[0]!).detail).toContain('[secret masked]');
  });
});
