/**
 * The settings that guard where approvals are decided: a Redis store must have a password (anything
 * that reaches a password-less Redis — an agent's command on the same network included — could
 * rewrite a stored approval), unless `TSUKA_REDIS_ALLOW_NO_PASSWORD=1` accepts that; and
 * `TSUKA_APPROVAL_KEY`, the secret stored approvals are signed with (see approval-key.ts).
 * Both come from the environment only, never from tsuka.config.json (a file in a folder an agent
 * might write to must not lower them).
 */

/** The shortest `TSUKA_APPROVAL_KEY` accepted: 32 characters (e.g. `openssl rand -hex 32` gives 64). */
export const MIN_APPROVAL_KEY_LENGTH = 32;

export interface StoreSecurityConfig {
  /** `TSUKA_REDIS_ALLOW_NO_PASSWORD=1`: a Redis URL without a password is accepted (not recommended). */
  redisAllowNoPassword: boolean;
  /** `TSUKA_APPROVAL_KEY`: the approval signing secret, the same on every replica. */
  approvalKey?: string;
}

/** Same test as the coordination's `isRedisUrl` (not imported: config loading stays free of the store's modules). */
const isRedis = (url: string | undefined): url is string => /^rediss?:\/\//i.test(url?.trim() ?? '');

/** The host:port of a store URL, without any credentials (for messages). */
function where(url: string): string {
  try {
    return new URL(url.trim()).host || url;
  } catch {
    return 'the configured address';
  }
}

/** Whether a Redis URL carries a password (`redis://:PASSWORD@host` or `redis://user:PASSWORD@host`). */
export function redisUrlHasPassword(url: string): boolean {
  try {
    return new URL(url.trim()).password !== '';
  } catch {
    return false;
  }
}

export function readStoreSecurityConfig(input: { environment: NodeJS.ProcessEnv; storeUrl: string | undefined; problems: string[] }): StoreSecurityConfig {
  const { environment, storeUrl, problems } = input;
  const allowRaw = (environment.TSUKA_REDIS_ALLOW_NO_PASSWORD ?? '').trim().toLowerCase();
  const redisAllowNoPassword = ['1', 'true', 'yes', 'on'].includes(allowRaw);
  if (allowRaw !== '' && !redisAllowNoPassword && !['0', 'false', 'no', 'off'].includes(allowRaw))
    problems.push(`TSUKA_REDIS_ALLOW_NO_PASSWORD="${allowRaw}" is not valid: use 1 (accept a Redis without a password) or 0.`);
  const approvalKey = environment.TSUKA_APPROVAL_KEY === '' ? undefined : environment.TSUKA_APPROVAL_KEY;
  if (approvalKey !== undefined && approvalKey.length < MIN_APPROVAL_KEY_LENGTH)
    problems.push(
      `TSUKA_APPROVAL_KEY is too short (${approvalKey.length} characters): use at least ${MIN_APPROVAL_KEY_LENGTH} random characters (e.g. the output of openssl rand -hex 32), the same on every replica.`,
    );
  if (isRedis(storeUrl) && !redisUrlHasPassword(storeUrl)) {
    if (!redisAllowNoPassword)
      problems.push(
        `TSUKA_STORE_URL points at a Redis without a password (${where(storeUrl)}): anything that reaches it, an agent's command included, could decide approvals — start Redis with --requirepass and put the password in the URL (redis://:PASSWORD@${where(storeUrl)}), or set TSUKA_REDIS_ALLOW_NO_PASSWORD=1 to accept the risk.`,
      );
    else if (approvalKey === undefined)
      problems.push(
        'TSUKA_REDIS_ALLOW_NO_PASSWORD=1 needs TSUKA_APPROVAL_KEY: without a Redis password there is no shared secret to sign approvals with — set TSUKA_APPROVAL_KEY to the same 32+ random characters on every replica.',
      );
  }
  return { redisAllowNoPassword, ...(approvalKey !== undefined ? { approvalKey } : {}) };
}
