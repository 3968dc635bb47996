/**
 * Chooses the coordination from the store URL: Redis when the state is on Redis (several replicas
 * may share it), in-process otherwise (SQLite allows one process per data folder).
 */
import type { Logger } from '../logger.js';
import type { Coordination } from './coordination.js';
import { createLocalCoordination } from './local-coordination.js';

/** True for `redis://` and `rediss://` store URLs. */
export const isRedisUrl = (url: string | undefined): url is string => /^rediss?:\/\//i.test(url?.trim() ?? '');

export async function openCoordination(
  storeUrl: string | undefined,
  logger: Logger,
  lease: { heartbeatMs?: number; leaseMs?: number } = {},
): Promise<Coordination> {
  if (!isRedisUrl(storeUrl)) return createLocalCoordination();
  // Loaded only when named: a SQLite install never loads the Redis client.
  const { openRedisCoordination } = await import('./redis-coordination.js');
  return openRedisCoordination({
    url: storeUrl.trim(),
    logger,
    leaseRenewMs: lease.heartbeatMs,
    leaseTtlMs: lease.leaseMs,
    // A leadership (the Discord gateway) lapses in half a lease and is looked at twice a heartbeat:
    // with the defaults, taken over within 20 s of its holder's death.
    ...(lease.leaseMs ? { leaderTtlMs: Math.round(lease.leaseMs / 2) } : {}),
    ...(lease.heartbeatMs ? { leaderCheckMs: Math.round(lease.heartbeatMs / 2) } : {}),
  });
}
