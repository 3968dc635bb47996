/**
 * What adapters deliver to the command layer: a tagged union of the four inbound event types.
 * Every event carries an id for de-duplication and the opaque ids of where it happened.
 */
import type { ChannelRef, MessageRef, Platform, ThreadRef, UserRef } from './chat-surface.js';
import type { InboundFile } from './context/conversation-context.js';
import type { ViewingContext } from './context/viewing-context.js';

interface InboundBase {
  /** Unique per delivery of the same event (Slack event_id; Discord message/interaction id). */
  id: string;
  platform: Platform;
  channel: ChannelRef;
  user: UserRef;
  /** Display name when the platform gave one. */
  userName?: string;
  /** True for messages from bots, including this one. */
  fromBot: boolean;
}

/** The bot was mentioned (or a plain `@character` when plain mentions are on). Text has the bot mention removed. */
export interface MentionEvent extends InboundBase {
  type: 'mention';
  message: MessageRef;
  /** Set when the mention was written inside an existing thread. */
  thread?: ThreadRef;
  text: string;
  /** A plain-text `@character` (no bot mention), delivered only when plain mentions are on. */
  plain?: boolean;
  /** Written in a direct message with the bot (every DM message addresses the bot). */
  direct?: boolean;
  /** The message this one replies to (Discord replies), read as context with the thread. */
  replyTo?: MessageRef;
  /** Files attached to the message. */
  files?: InboundFile[];
  /** Set when a schedule fired this mention on its owner's behalf (the schedule's id). */
  schedule?: string;
  /** What the person was looking at when they wrote (Slack's agent view, DMs): ids only. */
  viewing?: ViewingContext;
}

/** A message in a thread the bot follows, without a mention of the bot. */
export interface ThreadMessageEvent extends InboundBase {
  type: 'thread-message';
  message: MessageRef;
  thread: ThreadRef;
  text: string;
  /** Files attached to the message. */
  files?: InboundFile[];
}

export type SlashCommandName = 'call' | 'team' | 'goal' | 'tsuka';

export interface SlashCommandEvent extends InboundBase {
  type: 'slash-command';
  command: SlashCommandName;
  /** Everything after the command name. */
  text: string;
  /** Answers only the user who typed the command (ephemeral); usable several times. */
  reply(text: string): Promise<void>;
  /** Set when a schedule fired this command on its owner's behalf (the schedule's id). */
  schedule?: string;
}

export interface ButtonActionEvent extends InboundBase {
  type: 'button-action';
  actionId: string;
  value: string;
  /** The option picked, when the action came from a menu (see `Button.options`). */
  choice?: string;
  message: MessageRef;
  thread?: ThreadRef;
  /** Answers only the clicking user. */
  replyEphemeral(text: string): Promise<void>;
  /** Removes every button from the clicked message, keeping its text (a stale button after a restart); absent where the adapter cannot. */
  clearButtons?(): Promise<void>;
}

export type InboundEvent = MentionEvent | ThreadMessageEvent | SlashCommandEvent | ButtonActionEvent;
