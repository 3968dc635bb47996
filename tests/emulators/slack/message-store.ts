/**
 * What the emulated workspace contains: channel messages (with their edit history), ephemerals,
 * uploaded files, assistant statuses, reactions and response_url posts. Pure state, no HTTP.
 */

/** A message as the emulator holds it (bot replies and the users' messages the helpers stored). */
export interface StoredMessage {
  channel: string;
  ts: string;
  /** The parent's ts when the message is a thread reply (or the parent itself, as Slack reports it). */
  thread_ts?: string;
  text: string;
  blocks?: unknown[];
  username?: string;
  icon_emoji?: string;
  icon_url?: string;
  /** The author: the bot user for messages posted through the Web API, else the human user. */
  user: string;
  /** Set on messages posted by the bot. */
  bot_id?: string;
  /** How many times chat.update changed it. */
  edits: number;
  /** Every text the message had, oldest first (the current text last). */
  history: string[];
  /** Emoji names added with reactions.add. */
  reactions: string[];
  /** True when the posted text exceeded 40,000 characters and was cut, as Slack does. */
  truncated: boolean;
  /** Messages made by chat.startStream: 'open' until chat.stopStream. */
  stream?: 'open' | 'stopped';
  /** How many chat.appendStream calls grew it. */
  appends?: number;
  /** Files a person attached (see {@link SharedFile}), as Slack lists them on the message. */
  files?: Record<string, unknown>[];
  /** Streamed messages: every chunk taken (chunks, or markdown_text as one markdown_text chunk), in order. */
  chunks?: Record<string, unknown>[];
  /** Streamed messages: `timeline` (default) or `plan`, from chat.startStream. */
  taskDisplayMode?: 'timeline' | 'plan';
}

/** A file a person shared in the workspace: served at its private URL to the bot token only. */
export interface SharedFile {
  id: string;
  name: string;
  mimetype: string;
  bytes: Buffer;
  /** Its private URL answers a redirect there instead of the bytes (a hostile or moved file, issue 41). */
  redirectTo?: string;
}

/** A chat.postEphemeral message: visible only to `user`. */
export interface EphemeralMessage {
  channel: string;
  user: string;
  text: string;
  blocks?: unknown[];
  thread_ts?: string;
  username?: string;
  icon_emoji?: string;
  icon_url?: string;
  message_ts: string;
}

/** A file completed through files.completeUploadExternal. */
export interface UploadedFile {
  id: string;
  name: string;
  title: string;
  /** The uploaded bytes decoded as UTF-8. */
  content: string;
  bytes: Buffer;
  channel?: string;
  thread_ts?: string;
  initial_comment?: string;
}

/** An assistant.threads.setStatus call ("" clears the status). */
export interface ThreadStatus {
  channel: string;
  thread_ts: string;
  status: string;
  at: number;
}

/** A reactions.add call that succeeded. */
export interface AddedReaction {
  channel: string;
  ts: string;
  name: string;
}

/** A POST a bot made to a response_url the emulator handed out. */
export interface ResponseUrlPost {
  id: string;
  body: unknown;
  at: number;
}

/** A file announced by files.getUploadURLExternal, before and after its bytes arrive. */
export interface PendingUpload {
  id: string;
  filename: string;
  length: number;
  bytes?: Buffer;
}

/** Input of {@link MessageStore.add}. */
export type NewMessage = Omit<StoredMessage, 'edits' | 'history' | 'reactions' | 'truncated' | 'ts'> & {
  ts?: string;
  truncated?: boolean;
};

/** The workspace state behind the Web API and the Socket Mode helpers. */
export interface MessageStore {
  /** A new ts, unique and increasing, in Slack's `seconds.micros` shape. */
  nextTs(): string;
  add(message: NewMessage): StoredMessage;
  find(channel: string, ts: string): StoredMessage | undefined;
  update(channel: string, ts: string, changes: { text: string; blocks?: unknown[]; truncated: boolean }): StoredMessage | undefined;
  remove(channel: string, ts: string): StoredMessage | undefined;
  list(channel?: string): StoredMessage[];
  /** The parent then its replies, oldest first; empty when the parent is unknown. */
  thread(channel: string, threadTs: string): StoredMessage[];
  readonly ephemerals: EphemeralMessage[];
  readonly files: UploadedFile[];
  readonly pendingUploads: Map<string, PendingUpload>;
  readonly statuses: ThreadStatus[];
  readonly reactions: AddedReaction[];
  readonly responses: ResponseUrlPost[];
  /** The bot's direct-message channel with each user, opened by conversations.open (user id → D… id). */
  readonly directChannels: Map<string, string>;
  /** Files people shared, by id. */
  readonly sharedFiles: Map<string, SharedFile>;
}

const MICROS_PER_SECOND = 1_000_000;
/** Successive ts values are at least this far apart, so they read like Slack's (`…000100`). */
const TS_STEP_MICROS = 100;

/** Formats microseconds since the epoch as a Slack ts. */
export function formatTs(micros: number): string {
  const seconds = Math.floor(micros / MICROS_PER_SECOND);
  const fraction = String(micros % MICROS_PER_SECOND).padStart(6, '0');
  return `${seconds}.${fraction}`;
}

function compareTs(a: string, b: string): number {
  const [aSeconds = '0', aFraction = '0'] = a.split('.');
  const [bSeconds = '0', bFraction = '0'] = b.split('.');
  return Number(aSeconds) - Number(bSeconds) || Number(aFraction) - Number(bFraction);
}

/** Creates an empty workspace. `now` is injectable so ts values can be made deterministic. */
export function createMessageStore(now: () => number = Date.now): MessageStore {
  const messages = new Map<string, StoredMessage>();
  let lastMicros = 0;
  const key = (channel: string, ts: string) => `${channel}/${ts}`;

  const nextTs = (): string => {
    lastMicros = Math.max(now() * 1000, lastMicros + TS_STEP_MICROS);
    return formatTs(lastMicros);
  };

  const sorted = (list: StoredMessage[]) => list.sort((a, b) => compareTs(a.ts, b.ts));

  return {
    nextTs,
    add(message) {
      const stored: StoredMessage = {
        ...message,
        ts: message.ts ?? nextTs(),
        edits: 0,
        history: [message.text],
        reactions: [],
        truncated: message.truncated ?? false,
      };
      messages.set(key(stored.channel, stored.ts), stored);
      // Slack marks a message as a thread parent (thread_ts = its own ts) once it has a reply.
      const parent = stored.thread_ts ? messages.get(key(stored.channel, stored.thread_ts)) : undefined;
      if (parent && parent.thread_ts === undefined) parent.thread_ts = parent.ts;
      return stored;
    },
    find: (channel, ts) => messages.get(key(channel, ts)),
    update(channel, ts, changes) {
      const stored = messages.get(key(channel, ts));
      if (!stored) return undefined;
      stored.text = changes.text;
      stored.blocks = changes.blocks;
      stored.truncated = changes.truncated;
      stored.edits += 1;
      stored.history.push(changes.text);
      return stored;
    },
    remove(channel, ts) {
      const stored = messages.get(key(channel, ts));
      messages.delete(key(channel, ts));
      return stored;
    },
    list: (channel) => sorted([...messages.values()].filter((m) => channel === undefined || m.channel === channel)),
    thread(channel, threadTs) {
      const parent = messages.get(key(channel, threadTs));
      if (!parent) return [];
      const replies = [...messages.values()].filter((m) => m.channel === channel && m.thread_ts === threadTs && m.ts !== threadTs);
      return [parent, ...sorted(replies)];
    },
    ephemerals: [],
    files: [],
    pendingUploads: new Map(),
    statuses: [],
    reactions: [],
    responses: [],
    directChannels: new Map(),
    sharedFiles: new Map(),
  };
}
