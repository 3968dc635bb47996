/**
 * A Redis that came back empty took the pending approval records with it (issue 41): the runs
 * waiting for them here are told at once, on the card, instead of waiting for their timeout; and
 * a decision made on another replica is read back from the store (`decidedElsewhere`).
 */
import type { Logger } from '../../core/logger.js';
import type { ApprovalStore } from '../../core/store/approval-store.js';
import type { ApprovalDelivery, Waiter } from './approval-delivery.js';

/** How often a pending record that cannot be read right after the Redis came back empty is read again (about 30 s in all). */
const VANISHED_REREADS = 20;

/**
 * Ends every wait here whose stored record is gone. The store has its own connection, which may
 * come back a moment after the one that found the Redis empty: a record that cannot be read yet
 * is read again, at the connection's own reconnect pace, for a while; then it is left to its timeout.
 */
export async function endVanishedWaits(
  waiters: ReadonlyMap<string, Waiter>,
  context: { approvals: ApprovalStore; delivery: ApprovalDelivery; logger: Logger },
): Promise<void> {
  let unread = [...waiters.keys()];
  for (let attempt = 0; unread.length > 0; attempt++) {
    const next: string[] = [];
    for (const id of unread) {
      if (!waiters.has(id)) continue;
      const record = await context.approvals.get(id).catch(() => null);
      if (record === undefined) await context.delivery.vanished(id);
      else if (record === null) next.push(id);
    }
    unread = next;
    if (unread.length === 0) return;
    if (attempt >= VANISHED_REREADS) {
      context.logger.warn('could not read pending approvals after the Redis came back empty; they are left to their timeout', { approvalIds: unread });
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(2_000, 100 * 2 ** attempt)).unref());
  }
}

const DECIDED_STATUSES = new Set(['approved', 'approved-for-run', 'denied', 'expired']);

/**
 * Decided (and recorded) on another replica: show it on the prompt and let the run go on. The
 * message only says "look again": what counts is the stored record, and only if it verifies and
 * is this call's — a forged or copied record denies, a pending one is ignored; nothing of the
 * message is shown.
 */
export async function decidedElsewhere(
  id: string,
  context: { waiters: ReadonlyMap<string, Waiter>; approvals: ApprovalStore; delivery: ApprovalDelivery; logger: Logger },
): Promise<void> {
  if (!context.waiters.has(id)) return;
  const record = await context.approvals.get(id).catch((error: unknown) => {
    context.logger.warn('could not read an approval decided elsewhere', { approvalId: id, error });
    return undefined;
  });
  if (!record || !DECIDED_STATUSES.has(record.status)) {
    context.logger.warn('ignored an approval message: the stored approval is not decided', { approvalId: id, stored: record?.status });
    return;
  }
  await context.delivery.deliver(id, record);
}
