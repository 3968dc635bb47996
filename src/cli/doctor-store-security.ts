/** `tsuka doctor`'s lines on who can decide approvals in the store: the Redis password and the signing key. */
import path from 'node:path';
import type { AppConfig } from '../config/app-config.js';
import { redisUrlHasPassword } from '../config/store-security-config.js';
import { APPROVAL_KEY_FILE_NAME } from '../core/store/approval-key.js';
import { isRedisUrl } from '../core/coordination/open-coordination.js';

export function storeSecurityLines(config: AppConfig): string[] {
  const redis = /^rediss?:\/\//i.test(config.storeUrl?.trim() ?? '');
  const lines: string[] = [];
  if (redis && !redisUrlHasPassword(config.storeUrl!))
    lines.push(
      '⚠ Redis without a password (TSUKA_REDIS_ALLOW_NO_PASSWORD=1): whatever reaches it can rewrite runs and sessions; forged approvals are refused only by their signature (TSUKA_APPROVAL_KEY)',
    );
  if (config.storeSecurity.approvalKey) lines.push('approvals are signed with TSUKA_APPROVAL_KEY');
  else if (redis) lines.push('approvals are signed with a key derived from the Redis password (the same on every replica; TSUKA_APPROVAL_KEY overrides it)');
  else lines.push(`approvals are signed with the key in ${path.join(config.dataDirectory, APPROVAL_KEY_FILE_NAME)} (made at the first start, mode 0600)`);
  return lines;
}

/** With a Redis store: the replicas running on it, and whether it keeps what it is given (empty otherwise). */
export async function redisStoreLines(storeUrl: string | undefined): Promise<string[]> {
  if (!storeUrl || !isRedisUrl(storeUrl)) return [];
  const { liveReplicas } = await import('../core/coordination/redis-coordination.js');
  const replicas = await liveReplicas(storeUrl.trim());
  const { redisPersistenceAt } = await import('../core/coordination/redis-store-marker.js');
  const durability = await redisPersistenceAt(storeUrl.trim());
  return [
    `replicas on this Redis: ${replicas.length === 0 ? 'none running' : `${replicas.length} (${replicas.join(', ')})`}`,
    durability.warn ? `⚠ ${durability.text}` : durability.text,
  ];
}
