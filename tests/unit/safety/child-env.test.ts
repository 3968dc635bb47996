import { describe, expect, it } from 'vitest';
import { createChildEnv, isSecretName } from '../../../src/core/safety/child-env.js';

/** Shaped like the environment of a bot on a developer host (values are fakes). */
const HOST_ENV: NodeJS.ProcessEnv = {
  PATH: '/usr/local/bin:/usr/bin:/bin',
  HOME: '/home/tsuka',
  USER: 'tsuka',
  SHELL: '/bin/bash',
  LANG: 'en_US.UTF-8',
  LC_ALL: 'en_US.UTF-8',
  TERM: 'xterm-256color',
  PWD: '/srv/tsuka',
  TMPDIR: '/tmp',
  NODE_ENV: 'production',
  GIT_AUTHOR_NAME: 'TSUKA Bot',
  GIT_AUTHOR_EMAIL: 'bot@example.com',
  XAUTHORITY: '/home/tsuka/.Xauthority',
  TSUKA_WORKSPACE: '/srv/tsuka/workspace',
  TSUKA_LOG_LEVEL: 'info',
  TSUKA_LLM_BASE_URL: 'http://127.0.0.1:11434/v1',
  SLACK_BOT_TOKEN: 'xoxb-1111-2222-abcdefghijkl',
  SLACK_APP_TOKEN: 'xapp-1-A111-222-abcdef',
  SLACK_SIGNING_SECRET: '0123456789abcdef0123456789abcdef',
  SLACK_API_URL: 'https://slack.com/api/',
  DISCORD_BOT_TOKEN: 'MTA5ODc2NTQzMjEwOTg3NjU0.GaBcDe.abcdefghijklmnopqrstuvwxyz0123',
  DISCORD_API_URL: 'https://discord.com/api',
  TSUKA_LLM_API_KEY: 'local-key-123456',
  OPENROUTER_API_KEY: 'sk-or-v1-0123456789abcdef0123456789abcdef',
  OPENAI_API_KEY: 'sk-proj-0123456789abcdef0123',
  GITHUB_TOKEN: 'ghp_0123456789abcdefghijABCDEFGHIJ012345',
  GH_TOKEN: 'ghp_0123456789abcdefghijABCDEFGHIJ012345',
  NPM_TOKEN: 'npm_0123456789abcdef',
  npm_config__authToken: 'npm_lowercase_0123',
  AWS_ACCESS_KEY_ID: 'AKIAABCDEFGHIJKLMNOP',
  AWS_SECRET_ACCESS_KEY: 'abc/def+ghi',
  AWS_REGION: 'eu-west-1',
  DB_PASSWORD: 'hunter22',
  PGPASSWD: 'hunter23',
  SSH_AUTH_SOCK: '/tmp/ssh-agent.sock',
  STRIPE_PRIVATE_KEY: 'rk_live_123456',
  GOOGLE_APPLICATION_CREDENTIALS: '/home/tsuka/gcp.json',
  SENTRY_DSN: 'https://key@sentry.example/1',
  DEPLOY_WEBHOOK: 'https://hooks.example/abc',
  SIGNING_KEY: 'abcdef123456',
  HTTP_AUTHORIZATION: 'Basic dXNlcjpwYXNz',
  DATABASE_URL: 'postgres://app:s3cretpw@db.internal:5432/app',
};

describe('createChildEnv', () => {
  const childEnv = createChildEnv(HOST_ENV);

  it('keeps the ordinary variables a build needs', () => {
    for (const name of [
      'PATH',
      'HOME',
      'USER',
      'SHELL',
      'LANG',
      'LC_ALL',
      'TERM',
      'PWD',
      'TMPDIR',
      'NODE_ENV',
      'GIT_AUTHOR_NAME',
      'GIT_AUTHOR_EMAIL',
      'XAUTHORITY',
      'TSUKA_WORKSPACE',
      'TSUKA_LOG_LEVEL',
      'TSUKA_LLM_BASE_URL',
    ]) {
      expect(childEnv[name], name).toBe(HOST_ENV[name]);
    }
  });

  it("drops the bot's own tokens and settings", () => {
    for (const name of [
      'SLACK_BOT_TOKEN',
      'SLACK_APP_TOKEN',
      'SLACK_SIGNING_SECRET',
      'SLACK_API_URL',
      'DISCORD_BOT_TOKEN',
      'DISCORD_API_URL',
      'TSUKA_LLM_API_KEY',
      'OPENROUTER_API_KEY',
    ]) {
      expect(childEnv, name).not.toHaveProperty(name);
    }
  });

  it('drops every variable whose name looks like a secret', () => {
    for (const name of [
      'OPENAI_API_KEY',
      'GITHUB_TOKEN',
      'GH_TOKEN',
      'NPM_TOKEN',
      'npm_config__authToken',
      'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY',
      'AWS_REGION',
      'DB_PASSWORD',
      'PGPASSWD',
      'SSH_AUTH_SOCK',
      'STRIPE_PRIVATE_KEY',
      'GOOGLE_APPLICATION_CREDENTIALS',
      'SENTRY_DSN',
      'DEPLOY_WEBHOOK',
      'SIGNING_KEY',
      'HTTP_AUTHORIZATION',
    ]) {
      expect(childEnv, name).not.toHaveProperty(name);
    }
  });

  it('drops a bland-named variable whose value carries credentials', () => {
    expect(childEnv).not.toHaveProperty('DATABASE_URL');
    expect(createChildEnv({ BUILD_NOTE: 'token xoxb-1234-5678-abcdefgh' })).toEqual({});
  });

  it('leaves no secret value anywhere in the result', () => {
    const values = Object.values(childEnv).join('\n');
    expect(values).not.toMatch(/xox[bp]-|xapp-|sk-|ghp_|AKIA|hunter2|s3cretpw/);
  });

  it('never passes the state store URL on, even one without a password (with replicas, Redis decides approvals)', () => {
    const env = createChildEnv({ PATH: '/usr/bin', TSUKA_STORE_URL: 'redis://redis:6379', TSUKA_LLM_BASE_URL: 'http://ollama:11434/v1' });
    expect(env.TSUKA_STORE_URL).toBeUndefined();
    expect(env.TSUKA_LLM_BASE_URL).toBe('http://ollama:11434/v1');
  });

  it('does not modify its input', () => {
    expect(HOST_ENV.SLACK_BOT_TOKEN).toBe('xoxb-1111-2222-abcdefghijkl');
  });
});

describe('password-style names and credential URLs (security review)', () => {
  const env: NodeJS.ProcessEnv = {
    PWD: '/srv/tsuka/workspace',
    OLDPWD: '/srv/tsuka',
    MYSQL_PWD: 'hunter31',
    DB_PWD: 'hunter32',
    MY_PW: 'hunter33',
    DBPASS: 'hunter34',
    PGPASS: 'hunter35',
    PGPASSFILE: '/home/tsuka/.pgpass',
    GPG_PASSPHRASE: 'hunter36',
    SSH_PASSPHRASE_FILE: '/home/tsuka/pp',
    CACHE: 'redis://:p4ssw0rd@cache:6379/0',
  };
  const childEnv = createChildEnv(env);

  it('drops *PWD, *_PW, *PASS, PGPASS* and *PASSPHRASE* variables', () => {
    for (const name of ['MYSQL_PWD', 'DB_PWD', 'MY_PW', 'DBPASS', 'PGPASS', 'PGPASSFILE', 'GPG_PASSPHRASE', 'SSH_PASSPHRASE_FILE']) {
      expect(childEnv, name).not.toHaveProperty(name);
    }
  });

  it('drops a URL whose password has an empty user name', () => {
    expect(childEnv).not.toHaveProperty('CACHE');
  });

  it("keeps the shell's PWD and OLDPWD, which are folders, not secrets", () => {
    expect(childEnv).toEqual({ PWD: '/srv/tsuka/workspace', OLDPWD: '/srv/tsuka' });
  });
});

describe('isSecretName', () => {
  it.each([
    ['SLACK_BOT_TOKEN', true],
    ['TSUKA_LLM_API_KEY', true],
    ['TSUKA_SOMETHING_SECRET', true],
    ['my_api_key', true],
    ['AUTH', true],
    ['OAUTH_CLIENT', true],
    ['PASSWORD', true],
    ['SECRET_LEVEL', true],
    ['PATH', false],
    ['HOME', false],
    ['GIT_AUTHOR_NAME', false],
    ['KEYBOARD_LAYOUT', false],
    ['TSUKA_WORKSPACE', false],
    ['PWD', false],
    ['OLDPWD', false],
    ['MYSQL_PWD', true],
    ['MY_PW', true],
    ['PGPASSWORD', true],
  ] as const)('%s → %s', (name, expected) => {
    expect(isSecretName(name)).toBe(expected);
  });
});
