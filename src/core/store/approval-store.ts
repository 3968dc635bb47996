/**
 * Approval prompts that wait for a click. Kept in the store so a click is matched after a reconnect
 * or restart; settling is atomic per approval, so a second click reports "already decided".
 * Every record is signed (approval-signature.ts): one that does not verify — written into the store
 * by something without the bot's key — or that sits under another approval's key (a real record
 * copied) reads as denied (`tampered`), is never settled, never listed as pending, and is logged.
 * `consume` uses a decision once, for the call it was made for (approval-binding.ts).
 */
import { StoreError } from '../errors.js';
import { silentLogger, type Logger } from '../logger.js';
import type { ApprovalSigner } from './approval-signature.js';
import { bindingProblem, describeBindingProblem, type ApprovalExpectation, type BindingProblem } from './approval-binding.js';
import type { RiskLevel } from '../tools/tool.js';
import type { Store } from './open-store.js';

export type ApprovalStatus = 'pending' | 'approved' | 'approved-for-run' | 'denied' | 'expired';

import type { Approvers } from '../scopes/approval-rule.js';
import type { PolicyDecider } from '../policy/policy-decider.js';

export interface ApprovalRecord {
  id: string;
  runId: string;
  toolCallId: string;
  /** The call's fingerprint (call-fingerprint.ts); absent in records of earlier versions, which decide nothing. */
  fingerprint?: string;
  toolName: string;
  riskLevel: RiskLevel;
  summary: string;
  requesterId?: string;
  /** Who may decide (absent in records of earlier versions: the requester or an admin). */
  approvers?: Approvers;
  /** The approval policy's rule (issue 39): its name, who may approve and how many must; fixed when asked. */
  policy?: PolicyDecider;
  /** Who approved so far under an N-of-M rule (distinct members; the last one's approval settles it). */
  approvedBy?: string[];
  /** The chat message showing the prompt, as the adapter's opaque id. */
  messageRef?: string;
  createdAt: number;
  expiresAt: number;
  status: ApprovalStatus;
  decidedBy?: string;
  decidedAt?: number;
  /** When `consume` used the decision for its call (once). */
  consumedAt?: number;
  /** HMAC of the fields above with the bot's key (approval-signature.ts). */
  signature?: string;
  /**
   * Set on what `get`/`settle` return for a stored record whose signature does not verify: shown as
   * denied, with no decider and no prompt message (both would come from whoever forged it).
   */
  tampered?: true;
  /** Why it reads as tampered: a bad signature, or a real record under another approval's key. */
  tamperedBecause?: Extract<BindingProblem, 'signature' | 'key'>;
}

export type NewApproval = Omit<
  ApprovalRecord,
  'status' | 'decidedBy' | 'decidedAt' | 'consumedAt' | 'createdAt' | 'signature' | 'tampered' | 'tamperedBecause'
> & { createdAt?: number };
export type ApprovalDecision = { status: Exclude<ApprovalStatus, 'pending'>; decidedBy?: string };
export type SettleResult =
  | { ok: true; record: ApprovalRecord }
  | { ok: false; reason: 'already-decided'; record: ApprovalRecord }
  | { ok: false; reason: 'unknown' };
/** A decided record used for its call, or why it may not be (it then denies). */
export type ConsumeResult = { ok: true; record: ApprovalRecord } | { ok: false; problem: BindingProblem | 'pending' | 'unknown' };

export interface ApprovalStore {
  create(pending: NewApproval): Promise<ApprovalRecord>;
  get(id: string): Promise<ApprovalRecord | undefined>;
  /** Also records the chat message once the adapter has posted the prompt. */
  setMessageRef(id: string, messageRef: string): Promise<ApprovalRecord | undefined>;
  /** Decides a pending approval once. A click after `expiresAt` finds it expired, never approved. */
  settle(id: string, decision: ApprovalDecision): Promise<SettleResult>;
  /**
   * Uses a decided record once, for the call `expected` describes: atomically checks its signature,
   * its key, run, call and fingerprint, and that it was not used before, then marks it used.
   */
  consume(id: string, expected: ApprovalExpectation): Promise<ConsumeResult>;
  listPending(): Promise<ApprovalRecord[]>;
  /**
   * Counts `user`'s approval of a pending N-of-M approval (once per user), atomically; the record
   * as stored after it, or undefined when it is not pending (or unknown, or tampered).
   */
  recordApproval?(id: string, user: string): Promise<ApprovalRecord | undefined>;
  /** Marks every pending approval expired (but those `keep` spares) and returns them (at start, after a restart). */
  expireAllPending(keep?: (pending: ApprovalRecord) => boolean): Promise<ApprovalRecord[]>;
}

/** How long a decided approval stays readable (for "already decided by …" replies). */
export const DECIDED_APPROVAL_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * What a record that failed its check reads as: denied, under the key it was read from, with nothing
 * of the forger's choosing that would act.
 */
function tamperedView(stored: ApprovalRecord, key: string, because: 'signature' | 'key'): ApprovalRecord {
  const { messageRef: _messageRef, decidedBy: _decidedBy, decidedAt: _decidedAt, signature: _signature, consumedAt: _consumedAt, ...rest } = stored;
  return { ...rest, id: key, status: 'denied', tampered: true, tamperedBecause: because };
}

/** `recordApproval` of the store below, with its helpers. */
async function recordApproval(
  id: string,
  user: string,
  with_: {
    updateExisting: (id: string, fn: (current: ApprovalRecord) => ApprovalRecord) => Promise<ApprovalRecord | undefined>;
    checked: (stored: ApprovalRecord, key: string) => ApprovalRecord;
    signed: (record: ApprovalRecord) => ApprovalRecord;
    now: () => number;
  },
): Promise<ApprovalRecord | undefined> {
  let result: ApprovalRecord | undefined;
  await with_.updateExisting(id, (stored) => {
    const current = with_.checked(stored, id);
    if (current.tampered || current.status !== 'pending' || with_.now() > current.expiresAt) return stored;
    const approvedBy = current.approvedBy ?? [];
    result = approvedBy.includes(user) ? current : with_.signed({ ...current, approvedBy: [...approvedBy, user] });
    return result;
  });
  return result;
}

/** Creates the approval store over the `approvals` namespace; `signer` holds the bot's key. */
export function createApprovalStore(store: Store, options: { signer: ApprovalSigner; now?: () => number; logger?: Logger }): ApprovalStore {
  const now = options.now ?? Date.now;
  const logger = options.logger ?? silentLogger;
  const approvals = store.namespace<ApprovalRecord>('approvals');
  const signed = (record: ApprovalRecord): ApprovalRecord => {
    const { signature: _old, tampered: _tampered, tamperedBecause: _because, ...fields } = record;
    return { ...fields, signature: options.signer.sign(fields) };
  };
  /** The record stored under `key` as the bot may act on it: itself when it verifies and is its own, else its tampered view (logged). */
  const checked = (stored: ApprovalRecord, key: string): ApprovalRecord => {
    if (!options.signer.verify(stored)) {
      logger.error("a stored approval failed its signature check: it was written without the bot's key and counts as denied", {
        approvalId: key,
        runId: stored.runId,
        storedStatus: stored.status,
      });
      return tamperedView(stored, key, 'signature');
    }
    if (stored.id === key) return stored;
    logger.error(`a stored approval was refused as tampered: ${describeBindingProblem('key')}; it counts as denied`, {
      approvalId: key,
      copiedFrom: stored.id,
      storedTool: stored.toolName,
    });
    return tamperedView(stored, key, 'key');
  };

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
      (stored) => {
        const current = checked(stored, id);
        // A forged record stays as it is (evidence); it decides nothing but a denial.
        if (current.tampered || current.status !== 'pending') {
          result = { ok: false, reason: 'already-decided', record: current };
          return stored;
        }
        const time = now();
        const expired = time > current.expiresAt;
        const record: ApprovalRecord = expired
          ? { ...current, status: 'expired', decidedAt: time }
          : { ...current, status: decision.status, decidedBy: decision.decidedBy, decidedAt: time };
        const record_ = signed(record);
        result = expired && decision.status !== 'expired' ? { ok: false, reason: 'already-decided', record: record_ } : { ok: true, record: record_ };
        return record_;
      },
      { ttlMs: DECIDED_APPROVAL_TTL_MS },
    );
    return result;
  }

  async function consume(id: string, expected: ApprovalExpectation): Promise<ConsumeResult> {
    let result: ConsumeResult = { ok: false, problem: 'unknown' };
    await updateExisting(
      id,
      (stored) => {
        const current = checked(stored, id);
        const problem = current.tampered ? (current.tamperedBecause ?? 'signature') : bindingProblem(current, expected);
        if (problem) result = { ok: false, problem };
        else if (current.status === 'pending') result = { ok: false, problem: 'pending' };
        else if (current.consumedAt !== undefined) result = { ok: false, problem: 'used' };
        else {
          const record = signed({ ...current, consumedAt: now() });
          result = { ok: true, record };
          return record;
        }
        return stored;
      },
      { ttlMs: DECIDED_APPROVAL_TTL_MS },
    );
    return result;
  }

  async function listPending(): Promise<ApprovalRecord[]> {
    const pending: ApprovalRecord[] = [];
    for await (const [key, stored] of approvals.entries()) {
      if (stored.status !== 'pending') continue;
      const record = checked(stored, key);
      if (!record.tampered) pending.push(record);
    }
    return pending.sort((a, b) => a.createdAt - b.createdAt);
  }

  return {
    async create(input) {
      const record = signed({ ...input, createdAt: input.createdAt ?? now(), status: 'pending' });
      return approvals.update(record.id, (current) => {
        if (current) throw new StoreError(`An approval with id "${record.id}" already exists.`);
        return record;
      });
    },
    async get(id) {
      const stored = await approvals.get(id);
      return stored === undefined ? undefined : checked(stored, id);
    },
    async setMessageRef(id, messageRef) {
      let result: ApprovalRecord | undefined;
      await updateExisting(id, (stored) => {
        const current = checked(stored, id);
        if (current.tampered) {
          result = current;
          return stored;
        }
        result = signed({ ...current, messageRef });
        return result;
      });
      return result;
    },
    settle,
    consume,
    listPending,
    recordApproval: (id, user) => recordApproval(id, user, { updateExisting, checked, signed, now }),
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
