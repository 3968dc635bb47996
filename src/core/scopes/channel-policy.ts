/**
 * Per-channel settings (the `channels` section of `tsuka.config.json`): a channel named by opaque id
 * (`slack:T0/C123`), raw platform id (`C123`) or `#name` may get its own workspace folder, default
 * character, allowed characters, approval rule for DANGEROUS calls and thread etiquette.
 */

/** Who may approve a DANGEROUS call in a channel with other people (DMs, the playground and `ask`: the requester). */
export type DangerousApproval = 'other' | 'admin' | 'requester';
export const DANGEROUS_APPROVALS: readonly DangerousApproval[] = ['other', 'admin', 'requester'];

/** In a bot's thread: `starter` answers its starter, others only when they address a character; `everyone` answers all. */
export type ThreadReplies = 'starter' | 'everyone';
export const THREAD_REPLIES: readonly ThreadReplies[] = ['starter', 'everyone'];

export interface ChannelPolicy {
  /** How the channel was named in the file: an opaque id, a raw platform id, or `#name`. */
  key: string;
  /** An absolute folder: the channel's agents work (and are jailed) there. */
  workspace?: string;
  defaultCharacter?: string;
  /** Character names allowed in the channel; undefined = all. */
  characters?: string[];
  dangerousApproval?: DangerousApproval;
  threadReplies?: ThreadReplies;
}

/** The policy for a channel: by opaque id first, then raw id, then `#name` (when the name is known). */
export function findChannelPolicy(policies: readonly ChannelPolicy[], channel: string, name?: string): ChannelPolicy | undefined {
  const raw = channel.split(/[/:]/).at(-1) ?? channel;
  return (
    policies.find((policy) => policy.key === channel) ??
    policies.find((policy) => policy.key === raw) ??
    (name === undefined ? undefined : policies.find((policy) => policy.key.toLowerCase() === `#${name.toLowerCase()}`))
  );
}
