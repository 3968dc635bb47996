/**
 * The playground's opaque ids. Channel `playground:general`; message and thread
 * `playground:general/<messageId>` (a thread is named by its root message, so a message ref is
 * also the ref of the thread it starts); the one local user `playground:local`. Message ids carry
 * a per-process tag so that refs stored by an earlier process never name a new message.
 */
import { TsukaError } from '../../core/errors.js';
import type { ChannelRef, MessageRef, ThreadRef, UserRef } from '../../commands/chat-surface.js';

const PREFIX = 'playground:';

/** The only person in the playground: the requester of every run started there. */
export const PLAYGROUND_USER: UserRef = `${PREFIX}local`;
export const DEFAULT_CHANNEL_ID = 'general';
/** Where files for the user alone go (`uploadToUser`): the playground's stand-in for a direct message. */
export const DIRECT_CHANNEL_ID = 'direct';
/** Channel names the page may create: lower-case words joined by dashes. */
export const CHANNEL_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,39}$/;

export const channelRef = (channel: string): ChannelRef => `${PREFIX}${channel}`;
export const messageRef = (channel: string, messageId: string): MessageRef => `${PREFIX}${channel}/${messageId}`;

/** A ref this adapter did not make (or one that is malformed). */
export class PlaygroundRefError extends TsukaError {
  readonly ref: string;
  constructor(ref: string, kind: string, options?: { cause?: unknown }) {
    super('playground_bad_ref', `not a playground ${kind} id: ${ref}`, options);
    this.ref = ref;
  }
}

export function decodeChannel(ref: ChannelRef): string {
  const channel = body(ref, 'channel');
  if (!CHANNEL_ID_PATTERN.test(channel)) throw new PlaygroundRefError(ref, 'channel');
  return channel;
}

/** Decodes a message or thread ref into its channel and message id. */
export function decodeMessage(ref: MessageRef | ThreadRef): { channel: string; messageId: string } {
  const [channel, messageId, extra] = body(ref, 'message').split('/');
  if (!channel || !messageId || extra !== undefined || !CHANNEL_ID_PATTERN.test(channel)) throw new PlaygroundRefError(ref, 'message');
  return { channel, messageId };
}

function body(ref: string, kind: string): string {
  if (!ref.startsWith(PREFIX)) throw new PlaygroundRefError(ref, kind);
  return ref.slice(PREFIX.length);
}
