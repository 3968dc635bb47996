/**
 * Who goes first for a generation slot (issue 25): people, then steps of running workflows, then
 * schedules; first come first served within a class. So that nothing waits forever, a request that
 * has waited `promoteAfterMs` (5 minutes by default) counts as a person's from then on: it still
 * lets the people who came before it go first, but no later arrival overtakes it. The in-process
 * pool and the Redis script (`redis-scripts.ts`) order waiters by this same rule.
 */

/** `person`: a mention or a thread turn; `workflow`: a /goal, /team or /call run; `schedule`: anything a schedule started. */
export type GenerationPriority = 'person' | 'workflow' | 'schedule';

/** Lower goes first. */
export const PRIORITY_RANK: Readonly<Record<GenerationPriority, number>> = { person: 0, workflow: 1, schedule: 2 };

/** After this long in the queue a workflow's or a schedule's request is served as a person's. */
export const SLOT_PROMOTION_MS = 5 * 60_000;

/** A waiting request: its class, and what `/tsuka queue` may show of it (never its text). */
export interface SlotTicket {
  priority: GenerationPriority;
  /** Opaque user id of the person the request is for (a schedule's owner). */
  requester?: string;
  requesterName?: string;
  /** The character answering, or the workflow (`/goal`). */
  character?: string;
  /** Opaque channel id the request comes from, and its platform. */
  channel?: string;
  platform?: string;
}

/** One waiting request, as every replica's queue shows it, in the order it will be served. */
export interface SlotWaiter {
  id: string;
  /** 1-based. */
  position: number;
  ticket: SlotTicket;
  waitedMs: number;
}

/** The class a request is served in after waiting `waitedMs`: its own, or a person's once promoted. */
export function effectiveRank(priority: GenerationPriority, waitedMs: number, promoteAfterMs: number = SLOT_PROMOTION_MS): number {
  return waitedMs >= promoteAfterMs ? PRIORITY_RANK.person : PRIORITY_RANK[priority];
}

/** Orders waiters as they are served: by effective rank, then by arrival. */
export function compareWaiters(
  a: { priority: GenerationPriority; arrivedAt: number; sequence: number },
  b: { priority: GenerationPriority; arrivedAt: number; sequence: number },
  now: number,
  promoteAfterMs: number = SLOT_PROMOTION_MS,
): number {
  const rank = effectiveRank(a.priority, now - a.arrivedAt, promoteAfterMs) - effectiveRank(b.priority, now - b.arrivedAt, promoteAfterMs);
  return rank !== 0 ? rank : a.sequence - b.sequence;
}

const PRIORITIES: readonly string[] = Object.keys(PRIORITY_RANK);

/** A ticket read back from another replica (JSON): anything unexpected makes it a plain person's request. */
export function parseTicket(text: string | null | undefined): SlotTicket {
  let value: unknown;
  try {
    value = text ? JSON.parse(text) : undefined;
  } catch {
    // A malformed ticket shows as an anonymous person's request; it is display data only.
    value = undefined;
  }
  const record = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  const field = (key: string) => (typeof record[key] === 'string' ? { [key]: record[key] as string } : {});
  const priority = typeof record.priority === 'string' && PRIORITIES.includes(record.priority) ? (record.priority as GenerationPriority) : 'person';
  return { priority, ...field('requester'), ...field('requesterName'), ...field('character'), ...field('channel'), ...field('platform') };
}
