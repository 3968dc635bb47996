/**
 * Slack's opaque ids. Channel `slack:T0/C1`; message and thread `slack:T0/C1/1712345.000100`
 * (a thread is named by its parent's ts, so a message ref is also the ref of the thread it starts);
 * user `slack:U1` (the form `TSUKA_ADMINS` uses). Only this adapter decodes them.
 */
import type { ChannelRef, MessageRef, ThreadRef, UserRef } from '../../commands/chat-surface.js';

const PREFIX = 'slack:';

export const channelRef = (team: string, channel: string): ChannelRef => `${PREFIX}${team}/${channel}`;
export const messageRef = (team: string, channel: string, ts: string): MessageRef => `${PREFIX}${team}/${channel}/${ts}`;
export const userRef = (user: string): UserRef => `${PREFIX}${user}`;

export function decodeChannel(ref: ChannelRef): { team: string; channel: string } {
  const [team, channel] = body(ref).split('/');
  if (!team || !channel) throw new Error(`not a Slack channel id: ${ref}`);
  return { team, channel };
}

/** Decodes a message or thread ref into channel and ts. */
export function decodeMessage(ref: MessageRef | ThreadRef): { team: string; channel: string; ts: string } {
  const [team, channel, ts] = body(ref).split('/');
  if (!team || !channel || !ts) throw new Error(`not a Slack message id: ${ref}`);
  return { team, channel, ts };
}

export function decodeUser(ref: UserRef): string {
  return body(ref);
}

function body(ref: string): string {
  if (!ref.startsWith(PREFIX)) throw new Error(`not a Slack id: ${ref}`);
  return ref.slice(PREFIX.length);
}
