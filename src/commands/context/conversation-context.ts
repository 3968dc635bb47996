/**
 * What a conversation sees besides the message itself (issue 23): the thread's earlier messages
 * and the files attached to the message. Adapters produce these platform-free shapes; the command
 * layer decides how much of them reaches the model.
 *
 * Design: the inbound event carries only what arrived with it (its files, the message it replies
 * to); the thread's history is fetched lazily through the surface's optional `threadHistory`, once
 * a turn actually starts — so no platform call is spent on events the middleware drops, and a
 * queued turn reads the thread as it is when it runs.
 */

/** The surface's opaque ids (declared in `chat-surface.ts`, which imports this file). */
type MessageRef = string;
type ThreadRef = string;
type UserRef = string;

/** A file attached to a message. Serialisable: a queued turn carries it to another replica. */
export interface InboundFile {
  /** The file's name as its author gave it (hostile until sanitised). */
  name: string;
  /** The MIME type the platform reported, when it did. */
  mediaType?: string;
  /** The size the platform reported, in bytes. */
  size?: number;
  /** Where the adapter downloads it from (decoded by the adapter alone: a URL, or a file id). */
  source: string;
}

/** One earlier message of a thread, as the platform returned it. */
export interface ContextMessage {
  user: UserRef;
  userName?: string;
  text: string;
  /** When it was posted (ms since the epoch); orders messages and tells what the bot has not seen. */
  at: number;
  /** Posted by another app's bot (a CI bot, a webhook); never this bot, whose messages are left out. */
  fromOtherBot?: boolean;
  /** Names of files attached to it (listed in the context). */
  fileNames?: string[];
  /** Its files as the adapter downloads them (the newest few of a thread are fetched into the inbox). */
  files?: InboundFile[];
}

/** What `threadHistory` is asked for. */
export interface ThreadHistoryRequest {
  /** The thread the message is in, when it is in one. */
  thread?: ThreadRef;
  /** The message that called the bot in: only messages before it are returned. */
  message: MessageRef;
  /** The message it replies to (Discord replies): that message and the chain above it. */
  replyTo?: MessageRef;
  /** At most this many messages, the newest kept. */
  limit: number;
}
