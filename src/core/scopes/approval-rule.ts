/**
 * Who may decide an approval. RESTRICTED calls: the requester or an admin. DANGEROUS calls in a
 * channel with other people need someone other than the requester (`other`: an admin or a second
 * member; `admin`: admins only; `requester`: the old rule). In a DM, the playground and `tsuka ask`
 * the requester decides. Anyone who may approve may deny, and so may the requester.
 */
import type { DangerousApproval } from './channel-policy.js';

/** Who decides one approval: fixed when it is asked, stored with it. */
export type Approvers = 'requester' | 'other' | 'admin';

export function approversFor(risk: string, rule: DangerousApproval, othersPresent: boolean): Approvers {
  if (risk !== 'DANGEROUS' || rule === 'requester') return 'requester';
  if (rule === 'admin') return 'admin';
  return othersPresent ? 'other' : 'requester';
}

export type ApprovalVerdict = { ok: true } | { ok: false; why: string };

export function mayDecide(approvers: Approvers, decision: 'approve' | 'deny', who: { user: string; requester?: string; isAdmin: boolean }): ApprovalVerdict {
  const isRequester = who.requester !== undefined && who.user === who.requester;
  if (decision === 'deny' && (isRequester || who.isAdmin || approvers === 'other')) return { ok: true };
  if (approvers === 'requester') {
    return isRequester || who.isAdmin ? { ok: true } : { ok: false, why: 'Only the requester or an admin can decide this.' };
  }
  if (approvers === 'admin') {
    return who.isAdmin ? { ok: true } : { ok: false, why: 'This dangerous action needs an admin’s approval (TSUKA_DANGEROUS_APPROVAL=admin).' };
  }
  return isRequester
    ? {
        ok: false,
        why: 'You asked for this dangerous action: someone else in this channel (a second member or an admin) must approve it. You can still deny it.',
      }
    : { ok: true };
}

/** The card's line saying who may decide; `mention` renders a user. */
export function whoDecidesLine(approvers: Approvers, requester: string | undefined, mention: (user: string) => string): string {
  const asker = requester ? mention(requester) : 'the requester';
  if (approvers === 'other') return `Someone other than ${asker} must approve — a second member of this channel or an admin; ${asker} can deny.`;
  if (approvers === 'admin') return `Only an admin can approve; ${asker} can deny.`;
  return requester ? `Only ${asker} or an admin can decide.` : 'Only an admin can decide.';
}
