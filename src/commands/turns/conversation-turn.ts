/**
 * One conversation turn as it waits for its thread: in this process (with its surface and
 * character) or stored in the coordination (serialisable, so another replica may answer it).
 */
import type { Character } from '../../core/data/types.js';
import type { CoordinationMessage } from '../../core/coordination/coordination.js';
import type { ChatSurface, Platform, UserRef } from '../chat-surface.js';
import type { MentionEvent, ThreadMessageEvent } from '../inbound-event.js';
import type { TurnRerun } from './run-turn.js';
import type { TurnSource } from '../context/turn-context.js';

/** A mention inside a thread or a reply reads the thread (a tag-in); every message brings its files. */
export function turnSource(event: MentionEvent | ThreadMessageEvent): TurnSource {
  const replyTo = event.type === 'mention' ? event.replyTo : undefined;
  return {
    message: event.message,
    ...(event.thread ? { thread: event.thread } : {}),
    ...(replyTo ? { replyTo } : {}),
    ...(event.files && event.files.length > 0 ? { files: event.files } : {}),
    ...(event.type === 'mention' && event.viewing ? { viewing: event.viewing } : {}),
    readThread: event.type === 'mention' && Boolean(event.thread || replyTo),
  };
}

/** What a turn carries wherever it waits: in this process or in the coordination. */
interface TurnFields {
  text: string;
  user: UserRef;
  userName?: string;
  channel: string;
  source?: TurnSource;
  /** A Re-run's model server and starting history (issue 28). */
  rerun?: TurnRerun;
  /** The schedule that started it: it waits behind people for the model. */
  schedule?: string;
}

export interface QueuedTurn extends TurnFields {
  surface: ChatSurface;
  character: Character;
}

/** A queued turn as it waits in the coordination (another replica may answer it). */
export interface StoredTurn extends CoordinationMessage, TurnFields {
  platform: Platform;
  character: string;
}

export function storedTurn(turn: QueuedTurn): StoredTurn {
  return {
    platform: turn.surface.platform,
    character: turn.character.name,
    text: turn.text,
    user: turn.user,
    ...(turn.userName ? { userName: turn.userName } : {}),
    channel: turn.channel,
    ...(turn.source ? { source: turn.source } : {}),
    ...(turn.rerun ? { rerun: turn.rerun } : {}),
    ...(turn.schedule ? { schedule: turn.schedule } : {}),
  };
}

export function revivedTurn(stored: StoredTurn, surface: ChatSurface, character: Character): QueuedTurn {
  return {
    surface,
    character,
    text: stored.text,
    user: stored.user,
    ...(stored.userName ? { userName: stored.userName } : {}),
    channel: stored.channel,
    ...(stored.source ? { source: stored.source } : {}),
    ...(stored.rerun ? { rerun: stored.rerun } : {}),
    ...(stored.schedule ? { schedule: stored.schedule } : {}),
  };
}
