/**
 * Approval prompts that wait for a click. Kept in the store so a click is matched after a reconnect
 * or restart; settling is atomic per approval, so a second click reports "already decided".
 */
import { StoreError } from '../errors.js';
import type { RiskLevel } from '../tools/tool.js';
import type { Store } from './open-store.js';

export type ApprovalStatus = 'pending' | 'approved' | 'approved-for-run' | 'denied' | 'expired';

import type { Approvers } from '../scopes/approval-rule.js';

export interface ApprovalRecord {
  id: string;
  runId: string;
  toolCallId: string;
  toolName: string;
  riskLevel: RiskLevel;
  summary: string;
  requesterId?: string;
  /** Who may decide (absent in records of earlier versions: the requester or an admin). */
  approvers?: Approvers;
  /** The chat message showing the prompt, as the adapter's opaque id. */
  messageRef?: string;
  createdAt: number;
  expiresAt: number;
  status: ApprovalStatus;
  decidedBy?: string;
  decidedAt?: number;
}

export type NewApproval = Omit<ApprovalRecord, 'status' | 'decidedBy' | 'decidedAt' | 'createdAt'> & { createdAt?: number };
export type ApprovalDecision = { status: Exclude<ApprovalStatus, 'pending'>; decidedBy?: string };
export type SettleResult =
  | { ok: true; record: ApprovalRecord }
  | { ok: false; reason: 'already-decided'; record: ApprovalRecord }
  | { ok: false; reason: 'unknown' };

export interface ApprovalStore {
  create(pending: NewApproval): Promise<ApprovalRecord>;
  get(id: string): Promise<ApprovalRecord | undefined>;
  /** Also records the chat message once the adapter has posted the prompt. */
  setMessageRef(id: string, messageRef: string): Promise<ApprovalRecord | undefined>;
  /** Decides a pending approval once. A click after `expiresAt` finds it expired, never approved. */
  settle(id: string, decision: ApprovalDecision): Promise<SettleResult>;
  listPending(): Promise<ApprovalRecord[]>;
  /** Marks every pending approval expired (but those `keep` spares) and returns them (at start, after a restart). */
  expireAllPending(keep?: (pending: ApprovalRecord) => boolean): Promise<ApprovalRecord[]>;
}

/** How long a decided approval stays readable (for "already decided by …" replies). */
export const DECIDED_APPROVAL_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** Creates the approval store over the `approvals` namespace. */
export function createApprovalStore(store: Store, options: { now?: () => number } = {}): ApprovalStore {
  const now = options.now ?? Date.now;
  const approvals = store.namespace<ApprovalRecord>('approvals');

  /** `update` for a record that must exist: resolves undefined (and writes nothing) when it does not. */
  async function updateExisting(
    id: string,
    fn: (current: ApprovalRecord) => ApprovalRecord,
    options?: { ttlMs?: number },
  ): Promise<ApprovalRecord | undefined> {
    const missing = Symbol('missing');
    try {
      return await approvals.update(
        id,
        (current) => {
          if (!current) throw missing;
          return fn(current);
        },
        options,
      );
    } catch (error) {
      if (error === missing) return undefined;
      throw error;
    }
  }

  async function settle(id: string, decision: ApprovalDecision): Promise<SettleResult> {
    let result: SettleResult = { ok: false, reason: 'unknown' };
    await updateExisting(
      id,
      (current) => {
        if (current.status !== 'pending') {
          result = { ok: false, reason: 'already-decided', record: current };
          return current;
        }
        const time = now();
        const expired = time > current.expiresAt;
        const record: ApprovalRecord = expired
          ? { ...current, status: 'expired', decidedAt: time }
          : { ...current, status: decision.status, decidedBy: decision.decidedBy, decidedAt: time };
        result = expired && decision.status !== 'expired' ? { ok: false, reason: 'already-decided', record } : { ok: true, record };
        return record;
      },
      { ttlMs: DECIDED_APPROVAL_TTL_MS },
    );
    return result;
  }

  async function listPending(): Promise<ApprovalRecord[]> {
    const pending: ApprovalRecord[] = [];
    for await (const [, record] of approvals.entries()) if (record.status === 'pending') pending.push(record);
    return pending.sort((a, b) => a.createdAt - b.createdAt);
  }

  return {
    async create(input) {
      const record: ApprovalRecord = { ...input, createdAt: input.createdAt ?? now(), status: 'pending' };
      return approvals.update(record.id, (current) => {
        if (current) throw new StoreError(`An approval with id "${record.id}" already exists.`);
        return record;
      });
    },
    get: (id) => approvals.get(id),
    setMessageRef: (id, messageRef) => updateExisting(id, (current) => ({ ...current, messageRef })),
    settle,
    listPending,
    async expireAllPending(keep) {
      const expired: ApprovalRecord[] = [];
      for (const pending of await listPending()) {
        if (keep?.(pending)) continue;
        const result = await settle(pending.id, { status: 'expired' });
        if (result.ok) expired.push(result.record);
      }
      return expired;
    },
  };
}
