import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { encodedForms } from '../../../src/core/safety/secret-encodings.js';
import { collectSecretValues, createSecretMasker, SECRET_MASK } from '../../../src/core/safety/secret-mask.js';

/** The seven kinds of secret the probe found in the bot's environment, plus a URL-only password. */
const ENV: NodeJS.ProcessEnv = {
  PATH: '/usr/bin:/bin',
  HOME: '/home/tsuka',
  SLACK_BOT_TOKEN: 'xoxb-1111111111-2222222222-AbCdEfGhIjKlMnOpQrSt',
  SLACK_APP_TOKEN: 'xapp-1-A0123456789-1234567890-abcdef0123',
  SLACK_SIGNING_SECRET: '8f14e45fceea167a5a36dedd4bea2543',
  DISCORD_BOT_TOKEN: 'plain-discord-token-value-1234',
  TSUKA_LLM_API_KEY: 'local-model-key-98765',
  OPENROUTER_API_KEY: 'or-key-without-known-shape-42',
  DATABASE_URL: 'postgres://app:Hunter2-db-pw@db.internal:5432/app',
  ESCAPED_URL: 'redis://:p%40ss-w0rd!@cache:6379/0',
};

const SECRETS = [
  'xoxb-1111111111-2222222222-AbCdEfGhIjKlMnOpQrSt',
  'xapp-1-A0123456789-1234567890-abcdef0123',
  '8f14e45fceea167a5a36dedd4bea2543',
  'plain-discord-token-value-1234',
  'local-model-key-98765',
  'or-key-without-known-shape-42',
  'Hunter2-db-pw',
];

const mask = createSecretMasker(ENV);

function run(script: string): string {
  return execFileSync('/bin/sh', ['-c', script], { env: ENV, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
}

/** Every form of every secret that could be read back from `text` (line breaks removed, as a reader would). */
function leakedForms(text: string): string[] {
  const joined = text.replace(/[\r\n]/g, '');
  return SECRETS.flatMap((secret) => encodedForms(secret)).filter((form) => joined.includes(form));
}

describe('secret values', () => {
  it('takes secret-named values and the password of any URL-valued variable, raw and %-decoded', () => {
    const values = collectSecretValues(ENV);
    for (const secret of SECRETS) expect(values).toContain(secret);
    expect(values).toContain('p%40ss-w0rd!');
    expect(values).toContain('p@ss-w0rd!');
    expect(values).not.toContain('/home/tsuka');
  });

  it('a URL password printed on its own is masked', () => {
    expect(mask('the password is Hunter2-db-pw.')).toBe(`the password is ${SECRET_MASK}.`);
    expect(mask('p@ss-w0rd!')).toBe(SECRET_MASK);
  });
});

describe('a command reading /proc/self/environ (the environment a child inherits) leaks no secret in any encoding', () => {
  const commands: [string, string][] = [
    ['cat', 'cat /proc/self/environ | tr "\\0" "\\n"'],
    ['base64 (wrapped at 76 columns)', 'base64 /proc/self/environ'],
    ['base64 -w0', 'base64 -w0 /proc/self/environ'],
    ['base64 of a shifted stream (offset 1)', '{ printf x; cat /proc/self/environ; } | base64 -w0'],
    ['base64 of a shifted stream (offset 2)', '{ printf xy; cat /proc/self/environ; } | base64'],
    ['base64url', 'basenc --base64url /proc/self/environ'],
    ['hex (xxd -p, wrapped at 60 columns)', 'xxd -p /proc/self/environ'],
    ['hex upper case', 'xxd -p -u /proc/self/environ'],
    ['hex without line breaks', 'hexdump -ve \'1/1 "%.2x"\' /proc/self/environ'],
    ['reversed', 'cat /proc/self/environ | tr "\\0" "\\n" | rev'],
  ];

  it.each(commands)('%s', (_label, script) => {
    const output = run(script);
    // The command does expose the secrets: without the masker, they are there.
    expect(leakedForms(output).length).toBeGreaterThanOrEqual(SECRETS.length);
    const masked = mask(output);
    expect(leakedForms(masked)).toEqual([]);
    expect(masked).toContain(SECRET_MASK);
  });

  it('masks a secret split across a line break of the encoded output', () => {
    const secret = 'plain-discord-token-value-1234';
    const base64 = Buffer.from(secret).toString('base64');
    const wrapped = `${base64.slice(0, 17)}\n${base64.slice(17)}`;
    expect(mask(wrapped)).not.toContain(base64.slice(0, 17));
  });
});

describe('linear time and no throw on huge input', () => {
  const MB = 1024 * 1024;

  it('10 MB without spaces, with a secret near the end', () => {
    const text = `${'a'.repeat(10 * MB)}xoxb-1111111111-2222222222-AbCdEfGhIjKlMnOpQrSt`;
    const masked = mask(text);
    expect(masked.endsWith(SECRET_MASK)).toBe(true);
    expect(masked.length).toBe(10 * MB + SECRET_MASK.length);
  });

  it.each([
    ['a:', 'a:'],
    ['//', '//'],
    ['@', '@'],
    ['a://a:', 'a://a:'],
    ['a.', 'a.'],
    ['.aaaaaa (Discord token middles)', '.aaaaaa'],
    ['eyJ-', 'eyJ-'],
    ['spaces after Bearer', 'Bearer  '],
    ['x://u:', 'x://u:'],
  ])('10 MB of %s', (_label, unit) => {
    const text = unit.repeat(Math.ceil((10 * MB) / unit.length));
    const masked = mask(text);
    expect(typeof masked).toBe('string');
    expect(masked.length).toBeGreaterThan(0);
  });

  it('a secret split across the boundary of two shape windows is masked whole', () => {
    const token = 'ghp_0123456789abcdefghijABCDEFGHIJ012345';
    const bare = createSecretMasker({});
    const prefix = 'x '.repeat(128 * 1024 - 10);
    const masked = bare(`${prefix}${token} tail`);
    expect(masked).toBe(`${prefix}${SECRET_MASK} tail`);
  });

  it('a private key longer than the window overlap is masked to its END line', () => {
    const bare = createSecretMasker({});
    const body = 'QUJD\n'.repeat(20_000);
    const prefix = 'y '.repeat(128 * 1024 - 20);
    const masked = bare(`${prefix}-----BEGIN RSA PRIVATE KEY-----\n${body}-----END RSA PRIVATE KEY-----\nafter`);
    expect(masked).toBe(`${prefix}${SECRET_MASK}\nafter`);
  });
});
