/**
 * Who may decide an approval. RESTRICTED calls: the requester or an admin. DANGEROUS calls follow
 * what the call can touch (issue 35): where other people are in the room, or where the room's
 * workspace is one other channels share (the default workspace, or a folder another channel maps or
 * overlaps), someone other than the requester must approve — `other`: a second member or an admin;
 * `admin`: an admin. Under both, nobody approves their own DANGEROUS call, admins included: the
 * two-person rule means two people (a team that wants self-approval sets `requester` for the
 * channel). A DM or a solo channel with a workspace of its own keeps the requester's decision, and
 * so does the host's operator in the playground. Anyone who may approve may deny, and so may the
 * requester.
 */
import type { DangerousApproval } from './channel-policy.js';

/** Who decides one approval: fixed when it is asked, stored with it. */
export type Approvers = 'requester' | 'other' | 'admin';

/** What the rule of a DANGEROUS call depends on, told by the command layer. */
export interface ApprovalRoom {
  /** Someone besides the requester (and the bot) is in the conversation, or the platform could not tell. */
  othersPresent: boolean;
  /** The conversation's workspace is, contains or lies inside one that other channels work in. */
  sharedWorkspace: boolean;
  /** The one person here is the host's operator (the local playground, reached only with the key printed at start). */
  operator?: boolean;
}

/** Who may decide, with what the card needs to name them. */
export interface DangerousRule {
  approvers: Approvers;
  /** Nobody but the requester can see the card here (a DM or a solo channel). */
  alone: boolean;
}

export function approversFor(risk: string, rule: DangerousApproval, room: ApprovalRoom): Approvers {
  if (risk !== 'DANGEROUS' || rule === 'requester') return 'requester';
  if (rule === 'admin') return 'admin';
  if (room.operator) return 'requester';
  return room.othersPresent || room.sharedWorkspace ? 'other' : 'requester';
}

export type ApprovalVerdict = { ok: true } | { ok: false; why: string };

export function mayDecide(approvers: Approvers, decision: 'approve' | 'deny', who: { user: string; requester?: string; isAdmin: boolean }): ApprovalVerdict {
  const isRequester = who.requester !== undefined && who.user === who.requester;
  if (decision === 'deny' && (isRequester || who.isAdmin || approvers === 'other')) return { ok: true };
  if (approvers === 'requester') {
    return isRequester || who.isAdmin ? { ok: true } : { ok: false, why: 'Only the requester or an admin can decide this.' };
  }
  if (approvers === 'admin' && !who.isAdmin) {
    return { ok: false, why: 'This dangerous action needs an admin’s approval (TSUKA_DANGEROUS_APPROVAL=admin).' };
  }
  if (isRequester) {
    return {
      ok: false,
      why:
        approvers === 'admin'
          ? 'You asked for this dangerous action: another admin must approve it (TSUKA_DANGEROUS_APPROVAL=admin). You can still deny it.'
          : 'You asked for this dangerous action: someone else in this channel (a second member or an admin) must approve it. You can still deny it.',
    };
  }
  return { ok: true };
}

/** `<@A>, <@B>` — or undefined when there is nobody to name. */
function listed(users: readonly string[], mention: (user: string) => string): string | undefined {
  return users.length === 0 ? undefined : users.map(mention).join(', ');
}

/**
 * The card's line saying who may decide; `mention` renders a user, `admins` are the platform's
 * admins (named on the card), `alone` says that nobody else can see the card where it was asked.
 */
export function whoDecidesLine(
  approvers: Approvers,
  requester: string | undefined,
  mention: (user: string) => string,
  room: { admins?: readonly string[]; alone?: boolean } = {},
): string {
  const asker = requester ? mention(requester) : 'the requester';
  const admins = listed(
    (room.admins ?? []).filter((admin) => admin !== requester),
    mention,
  );
  if (approvers === 'other' && room.alone) {
    return [
      `This conversation works in a workspace other channels share, so someone other than ${asker} must approve — an admin${admins ? ` (${admins})` : ''}.`,
      admins ? 'Nobody else can see this conversation:' : 'No admin is configured (`TSUKA_ADMINS`), so nobody can approve it here:',
      `${asker} can deny, ask in a channel, or give this conversation a workspace of its own (the \`channels\` section).`,
    ].join(' ');
  }
  if (approvers === 'other') {
    return `Someone other than ${asker} must approve — a second member of this channel or an admin${admins ? ` (${admins})` : ''}; ${asker} can deny.`;
  }
  if (approvers === 'admin') {
    return `Only an admin other than ${asker} can approve${admins ? ` (${admins})` : ' — no other admin is configured (`TSUKA_ADMINS`)'}; ${asker} can deny.`;
  }
  return requester ? `Only ${asker} or an admin can decide.` : 'Only an admin can decide.';
}
