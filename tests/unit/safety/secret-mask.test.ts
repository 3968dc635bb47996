import { describe, expect, it } from 'vitest';
import { createSecretMasker, SECRET_MASK } from '../../../src/core/safety/secret-mask.js';

const ENV: NodeJS.ProcessEnv = {
  PATH: '/usr/bin:/bin',
  HOME: '/home/tsuka',
  SLACK_BOT_TOKEN: 'plain-value-without-prefix-1',
  TSUKA_LLM_API_KEY: 'local.key+with(regex)chars*',
  DB_PASSWORD: 'short',
  GITHUB_TOKEN: 'tok-abcdef',
  GITHUB_TOKEN_LONG: 'tok-abcdef-and-more',
};

describe('createSecretMasker', () => {
  const mask = createSecretMasker(ENV, ['extra-secret-value']);

  it('masks values of secret-named variables, regex characters included', () => {
    expect(mask('token=plain-value-without-prefix-1;')).toBe(`token=${SECRET_MASK};`);
    expect(mask('key local.key+with(regex)chars* end')).toBe(`key ${SECRET_MASK} end`);
    expect(mask('extra-secret-value!')).toBe(`${SECRET_MASK}!`);
  });

  it('masks the longer of two overlapping values whole', () => {
    expect(mask('tok-abcdef-and-more')).toBe(SECRET_MASK);
  });

  it('leaves short values and ordinary variables alone', () => {
    expect(mask('the word short stays; /home/tsuka stays')).toBe('the word short stays; /home/tsuka stays');
  });

  it.each([
    ['Slack bot token', 'xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOp'],
    ['Slack user token', 'xoxp-1234567890-0987654321-AbCdEfGh'],
    ['Slack app token', 'xapp-1-A0123456789-1234567890-abcdef0123'],
    ['OpenAI-style key', 'sk-proj-AbCdEfGhIjKlMnOpQrStUvWx'],
    ['OpenRouter key', 'sk-or-v1-0123456789abcdef0123456789abcdef'],
    ['GitHub classic token', 'ghp_0123456789abcdefghijABCDEFGHIJ012345'],
    ['GitHub fine-grained token', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz'],
    ['AWS access key id', 'AKIAIOSFODNN7EXAMPLE'],
    ['Discord bot token', 'MTA5ODc2NTQzMjEwOTg3NjU0MzI.GaBcDe.abcdefghijklmnopqrstuvwxyz0123456'],
    ['JWT', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'],
  ])('masks a %s found in free text', (_label, token) => {
    const masked = mask(`before ${token} after`);
    expect(masked).toBe(`before ${SECRET_MASK} after`);
  });

  it('masks bearer tokens but keeps the word Bearer and ordinary prose', () => {
    expect(mask('Authorization: Bearer abcDEF123456ghiJKL789')).toBe(`Authorization: Bearer ${SECRET_MASK}`);
    expect(mask('Bearer authentication is common.')).toBe('Bearer authentication is common.');
  });

  it('masks private key blocks, also when the end was cut off', () => {
    const key = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nAAAA\n-----END OPENSSH PRIVATE KEY-----';
    expect(mask(`key:\n${key}\ndone`)).toBe(`key:\n${SECRET_MASK}\ndone`);
    expect(mask('head\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA')).toBe(`head\n${SECRET_MASK}`);
  });

  it('masks the password of a URL with credentials', () => {
    expect(mask('postgres://app:s3cretpw@db:5432/app')).toBe(`postgres://app:${SECRET_MASK}@db:5432/app`);
  });

  it('masks the password of a URL with an empty user name', () => {
    expect(mask('REDIS_URL=redis://:p4ssw0rd@cache:6379/0')).toBe(`REDIS_URL=redis://:${SECRET_MASK}@cache:6379/0`);
  });

  it('masks the values of *PWD, *_PW, *PASS, PGPASS* and *PASSPHRASE* variables but not PWD or OLDPWD', () => {
    const env = {
      PWD: '/srv/tsuka/workspace',
      OLDPWD: '/srv/tsuka/previous',
      MYSQL_PWD: 'mysql-pw-123',
      MY_PW: 'my-pw-4567',
      DBPASS: 'db-pass-890',
      PGPASSWORD: 'pg-pass-321',
      GPG_PASSPHRASE: 'correct horse battery',
    };
    const masker = createSecretMasker(env);
    const text = Object.values(env).join(' | ');
    expect(masker(text)).toBe(['/srv/tsuka/workspace', '/srv/tsuka/previous', ...Array.from({ length: 5 }, () => SECRET_MASK)].join(' | '));
  });

  it('leaves ordinary text untouched', () => {
    const text = 'npm test\n  ✓ 12 tests passed (sk-1 is a ticket, xoxb alone too)\nhttps://example.com/path:8080';
    expect(mask(text)).toBe(text);
  });

  it('handles 100 KB inputs, including long runs of word characters, in a single pass', () => {
    const filler = 'a'.repeat(50_000) + ' lorem ipsum '.repeat(3_000);
    const text = `${filler}xoxb-1234567890-abcdefgh ${'b'.repeat(10_000)}`;
    const masked = mask(text);
    expect(masked.length).toBeLessThan(text.length);
    expect(masked).toContain(`${SECRET_MASK} `);
    expect(masked).not.toContain('xoxb-1234567890');
  });

  it('works with no secrets configured', () => {
    const bare = createSecretMasker({});
    expect(bare('ghp_0123456789abcdefghijABCDEFGHIJ012345 and plain text')).toBe(`${SECRET_MASK} and plain text`);
  });

  it('gives a long text the same masked form every time it is masked, and never a remembered one for another text', () => {
    const output = `${'line of a tool output\n'.repeat(100)}token=plain-value-without-prefix-1\n`;
    const first = mask(output);
    expect(first).toContain(SECRET_MASK);
    expect(first).not.toContain('plain-value-without-prefix-1');
    expect(mask(output)).toBe(first);
    // The masked form, masked again (as the transcript does), and a text one character longer.
    expect(mask(first)).toBe(first);
    expect(mask(`${output}x`)).toBe(`${first}x`);
    const clean = 'no secret here\n'.repeat(100);
    expect(mask(clean)).toBe(clean);
    expect(mask(clean)).toBe(clean);
  });
});
