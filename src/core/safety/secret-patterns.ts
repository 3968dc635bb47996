import { findDiscordTokens } from './discord-tokens.js';
import { findUrlCredentials } from './url-credentials.js';

/**
 * What a secret looks like, by name and by shape. Shared by the child-environment scrubber
 * (which drops such variables) and the masker (which hides their values in text).
 */

/** Variables the bot itself needs and no child process ever should see. */
const BOT_SECRET_NAMES: readonly RegExp[] = [
  /^SLACK_/,
  /^DISCORD_/,
  /^TSUKA_.*_(KEY|TOKEN|SECRET)$/,
  /^OPENROUTER_API_KEY$/,
  // The state store (Redis: where approvals are decided): an agent command must not even learn where it is.
  /^TSUKA_STORE_URL$/,
];

/** Name fragments that mark a variable as a secret (matched on the upper-cased name). */
const SECRET_NAME_PATTERNS: readonly RegExp[] = [
  /TOKEN/,
  /SECRET/,
  /PASSWORD/,
  /PASSWD/,
  /PASSPHRASE/,
  // MYSQL_PWD, DB_PWD… but not the shell's own PWD and OLDPWD (working folders, not secrets).
  /(?<!^(OLD)?)PWD$/,
  /(^|_)PW$/,
  /PASS$/,
  /^PGPASS/,
  /API_?KEY/,
  /_KEYS?$/,
  /(^|_)KEY(_|$)/,
  /PRIVATE/,
  /CREDENTIAL/,
  /COOKIE/,
  /WEBHOOK/,
  /(^|_)DSN$/,
  // AUTH, OAUTH, AUTHORIZATION, AUTH_TOKEN… but not GIT_AUTHOR_NAME.
  /(^|_)O?AUTH(?!ORS?(_|$))/,
  /^AWS_/,
  /^NPM_TOKEN$/,
  /^GITHUB_TOKEN$/,
];

/** Whether a variable's NAME says it holds a secret (`*TOKEN*`, `*_KEY`, `AWS_*`, `SLACK_*`…). */
export function isSecretName(name: string): boolean {
  const upper = name.toUpperCase();
  return BOT_SECRET_NAMES.some((pattern) => pattern.test(upper)) || SECRET_NAME_PATTERNS.some((pattern) => pattern.test(upper));
}

/**
 * Well-known token shapes, as regex sources without flags. Each must stay linear on any input:
 * a shape that can fail after a long run starts only where a run starts (a lookbehind of one
 * character), so no two attempts scan the same run. URL credentials are found by
 * `findUrlCredentials`, Discord tokens by `findDiscordTokens` and the bearer token by
 * `BEARER_TOKEN_SOURCE`, not here.
 */
export const SECRET_SHAPE_SOURCES: readonly string[] = [
  String.raw`\bxox[abeoprs]-[A-Za-z0-9-]{6,}`,
  String.raw`\bxapp-[A-Za-z0-9-]{6,}`,
  String.raw`\bsk-[A-Za-z0-9_-]{20,}`,
  String.raw`\bgh[pousr]_[A-Za-z0-9]{20,}`,
  String.raw`\bgithub_pat_[A-Za-z0-9_]{20,}`,
  String.raw`\bAKIA[0-9A-Z]{16}\b`,
  String.raw`(?<![\w-])eyJ[\w-]{10,}\.eyJ[\w-]{10,}\.[\w-]{10,}`,
  String.raw`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)`,
];

/**
 * `Bearer <token>`: group 1 is the token. A capture instead of a lookbehind: `(?<=Bearer\s+)`
 * is re-evaluated backwards over every space of a long run of spaces.
 */
export const BEARER_TOKEN_SOURCE = String.raw`\b[Bb]earer[ \t]{1,16}([A-Za-z0-9\-._~+/]{16,}=*)`;

const SECRET_SHAPE = new RegExp(SECRET_SHAPE_SOURCES.join('|'));
const BEARER_TOKEN = new RegExp(BEARER_TOKEN_SOURCE);

/** Whether a VALUE looks like a token or carries credentials (so it is dropped even under a bland name). */
export function looksLikeSecretValue(value: string): boolean {
  return SECRET_SHAPE.test(value) || BEARER_TOKEN.test(value) || findUrlCredentials(value).length > 0 || findDiscordTokens(value).length > 0;
}
