/**
 * The playground's chat, in memory: channels, messages (with their author, buttons and edits),
 * ephemerals, uploaded files and thread statuses. Every change is announced to subscribers (the
 * page's event streams, and the persistence that keeps the chat in the store across restarts).
 */
import { TsukaError } from '../../core/errors.js';
import { renderMarkdown } from './markdown.js';
import type { AuthorView, ButtonView, MenuView } from './cards.js';
import { DEFAULT_CHANNEL_ID, DIRECT_CHANNEL_ID, messageRef } from './ids.js';

export interface PlaygroundChannel {
  id: string;
  name: string;
  /** The direct conversation with the bot (the page's "Direct" section). */
  direct?: boolean;
}

export interface PlaygroundMessage {
  id: string;
  ref: string;
  channel: string;
  /** The root message's id when this is a reply in a thread. */
  thread?: string;
  author: AuthorView;
  text: string;
  /** `text` rendered by renderMarkdown: escaped, safe to insert. */
  html: string;
  buttons: ButtonView[];
  /** Menus under the message (a finished reply's second opinion), apart from its buttons. */
  menus?: MenuView[];
  createdAt: number;
  edits: number;
  /** Ids of the files the user attached to this message (shown inside it). */
  attachments?: string[];
}

export interface PlaygroundEphemeral {
  id: string;
  channel: string;
  thread?: string;
  html: string;
  text: string;
  createdAt: number;
}

export interface PlaygroundFile {
  id: string;
  channel: string;
  thread?: string;
  fileName: string;
  title: string;
  size: number;
  createdAt: number;
  /** An SVG picture the page shows inline, with its words for screen readers. */
  image?: { altText: string };
  /** A file the user attached: its bytes are kept base64 in `content`, with the type the browser reported. */
  attached?: { mediaType: string };
}

export interface PlaygroundStatus {
  channel: string;
  thread: string;
  text: string;
}

export type PlaygroundChange =
  | { kind: 'message'; message: PlaygroundMessage }
  | { kind: 'ephemeral'; ephemeral: PlaygroundEphemeral }
  | { kind: 'ephemeral-dismissed'; id: string }
  | { kind: 'file'; file: PlaygroundFile }
  | { kind: 'channel'; channel: PlaygroundChannel }
  | { kind: 'status'; status: PlaygroundStatus }
  | { kind: 'model'; model: PlaygroundModelStatus };

/** Whether a model answers, as the page's banner shows it (the page also reads it from `/api/status`). */
export interface PlaygroundModelStatus {
  ok: boolean;
  message: string;
}

export interface PlaygroundSnapshot {
  channels: PlaygroundChannel[];
  messages: PlaygroundMessage[];
  ephemerals: PlaygroundEphemeral[];
  files: PlaygroundFile[];
  statuses: PlaygroundStatus[];
}

/** A message, thread or file the playground does not have (another process made it, or it never existed). */
export class PlaygroundNotFoundError extends TsukaError {
  constructor(what: string, options?: { cause?: unknown }) {
    super('playground_not_found', `${what} does not exist in this playground.`, options);
  }
}

/** A channel by its id; `direct` is the one direct conversation with the bot. */
function channelOf(id: string): PlaygroundChannel {
  return id === DIRECT_CHANNEL_ID ? { id, name: 'TSUKA', direct: true } : { id, name: id };
}

export type PlaygroundState = ReturnType<typeof createPlaygroundState>;

export function createPlaygroundState(options: { now?: () => number } = {}) {
  const now = options.now ?? Date.now;
  // Ids carry a per-process tag: refs an earlier process stored never name a message of this one.
  const tag = Date.now().toString(36);
  let counter = 0;
  const nextId = (prefix: string) => `${prefix}${tag}-${++counter}`;
  const channels = new Map<string, PlaygroundChannel>([
    [DEFAULT_CHANNEL_ID, channelOf(DEFAULT_CHANNEL_ID)],
    [DIRECT_CHANNEL_ID, channelOf(DIRECT_CHANNEL_ID)],
  ]);
  const messages = new Map<string, PlaygroundMessage>();
  const offered = new Map<string, Set<string>>();
  const ephemerals: PlaygroundEphemeral[] = [];
  const files = new Map<string, PlaygroundFile & { content: string }>();
  const statuses = new Map<string, PlaygroundStatus>();
  let model: PlaygroundModelStatus | undefined;
  const listeners = new Set<(change: PlaygroundChange) => void>();
  const announce = (change: PlaygroundChange) => {
    for (const listener of listeners) listener(change);
  };
  const offer = (message: PlaygroundMessage) => {
    const set = offered.get(message.id) ?? new Set<string>();
    for (const button of message.buttons) set.add(`${button.actionId}\u0000${button.value}`);
    for (const menu of message.menus ?? []) for (const option of menu.options) set.add(`${menu.actionId}\u0000${menu.value}\u0000${option.choice}`);
    offered.set(message.id, set);
  };
  function getMessage(channel: string, id: string): PlaygroundMessage {
    const message = messages.get(id);
    if (!message || message.channel !== channel) throw new PlaygroundNotFoundError(`The message ${channel}/${id}`);
    return message;
  }
  const publicFile = ({ content: _content, ...file }: PlaygroundFile & { content: string }): PlaygroundFile => file;

  return {
    subscribe(listener: (change: PlaygroundChange) => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    snapshot(): PlaygroundSnapshot {
      return {
        channels: [...channels.values()],
        messages: [...messages.values()],
        ephemerals: [...ephemerals],
        files: [...files.values()].map(publicFile),
        statuses: [...statuses.values()],
      };
    },
    hasChannel: (id: string) => channels.has(id),
    addChannel(id: string): PlaygroundChannel {
      const existing = channels.get(id);
      if (existing) return existing;
      const channel = channelOf(id);
      channels.set(id, channel);
      announce({ kind: 'channel', channel });
      return channel;
    },
    /** The message `id` in `channel`; throws when there is none. */
    message: getMessage,
    findMessage: (id: string): PlaygroundMessage | undefined => messages.get(id),
    /** A thread's root and replies, in the order they were written. */
    threadMessages: (channel: string, root: string): PlaygroundMessage[] =>
      [...messages.values()].filter((message) => message.channel === channel && (message.id === root || message.thread === root)),
    addMessage(input: {
      channel: string;
      thread?: string;
      author: AuthorView;
      text: string;
      buttons?: ButtonView[];
      menus?: MenuView[];
      attachments?: string[];
    }): PlaygroundMessage {
      if (!channels.has(input.channel)) throw new PlaygroundNotFoundError(`The channel #${input.channel}`);
      const id = nextId('m');
      const message: PlaygroundMessage = {
        id,
        ref: messageRef(input.channel, id),
        channel: input.channel,
        thread: input.thread,
        author: input.author,
        text: input.text,
        html: renderMarkdown(input.text),
        buttons: input.buttons ?? [],
        ...(input.menus?.length ? { menus: input.menus } : {}),
        createdAt: now(),
        edits: 0,
        ...(input.attachments?.length ? { attachments: input.attachments } : {}),
      };
      messages.set(id, message);
      offer(message);
      announce({ kind: 'message', message });
      return message;
    },
    editMessage(channel: string, id: string, change: { text: string; author?: AuthorView; buttons: ButtonView[]; menus?: MenuView[] }): PlaygroundMessage {
      const { menus: _menus, ...current } = getMessage(channel, id);
      const message: PlaygroundMessage = {
        ...current,
        ...(change.menus?.length ? { menus: change.menus } : {}),
        text: change.text,
        html: renderMarkdown(change.text),
        author: change.author ?? current.author,
        buttons: change.buttons,
        edits: current.edits + 1,
      };
      messages.set(id, message);
      offer(message);
      announce({ kind: 'message', message });
      return message;
    },
    /** Whether this button (action + value), or this menu option (+ choice), was ever shown on the message: clicks on anything else are forged. */
    wasOffered: (messageId: string, actionId: string, value: string, choice?: string) =>
      offered.get(messageId)?.has(choice === undefined ? `${actionId}\u0000${value}` : `${actionId}\u0000${value}\u0000${choice}`) ?? false,
    addEphemeral(input: { channel: string; thread?: string; text: string }): PlaygroundEphemeral {
      const ephemeral = { id: nextId('e'), channel: input.channel, thread: input.thread, text: input.text, html: renderMarkdown(input.text), createdAt: now() };
      ephemerals.push(ephemeral);
      announce({ kind: 'ephemeral', ephemeral });
      return ephemeral;
    },
    addFile(
      input: { channel: string; thread?: string; fileName: string; title: string; image?: { altText: string } } & (
        | { content: string }
        | { bytes: Uint8Array; mediaType: string }
      ),
    ): PlaygroundFile {
      const attached = 'bytes' in input;
      const file = {
        id: nextId('f'),
        channel: input.channel,
        thread: input.thread,
        fileName: input.fileName,
        title: input.title,
        content: attached ? Buffer.from(input.bytes).toString('base64') : input.content,
        size: attached ? input.bytes.length : Buffer.byteLength(input.content),
        createdAt: now(),
        ...(input.image ? { image: input.image } : {}),
        ...(attached ? { attached: { mediaType: input.mediaType } } : {}),
      };
      files.set(file.id, file);
      announce({ kind: 'file', file: publicFile(file) });
      return publicFile(file);
    },
    file: (id: string) => files.get(id),
    /** Removes an ephemeral note (the page's ✕); false when there is none with this id. */
    dismissEphemeral(id: string): boolean {
      const index = ephemerals.findIndex((ephemeral) => ephemeral.id === id);
      if (index < 0) return false;
      ephemerals.splice(index, 1);
      announce({ kind: 'ephemeral-dismissed', id });
      return true;
    },
    /**
     * Puts back what an earlier process kept (before any client connects). Messages keep their ids
     * and buttons, so a click on an old Stop or approval button reaches the command layer, which
     * answers for runs that have ended.
     */
    restore(history: { channels: PlaygroundChannel[]; messages: PlaygroundMessage[]; files: (PlaygroundFile & { content: string })[] }): void {
      for (const channel of history.channels) channels.set(channel.id, channelOf(channel.id));
      for (const message of history.messages) {
        if (!channels.has(message.channel)) channels.set(message.channel, channelOf(message.channel));
        // Rendered again: the renderer may have improved since it was kept.
        const restored = { ...message, html: renderMarkdown(message.text) };
        messages.set(message.id, restored);
        offer(restored);
      }
      for (const file of history.files) files.set(file.id, file);
    },
    /** Tells open pages when the model's state changed (a server came up or went away); the same state says nothing. */
    setModel(status: PlaygroundModelStatus): void {
      if (model && model.ok === status.ok && model.message === status.message) return;
      model = { ok: status.ok, message: status.message };
      announce({ kind: 'model', model });
    },
    setStatus(status: PlaygroundStatus): void {
      if (status.text) statuses.set(status.thread, status);
      else statuses.delete(status.thread);
      announce({ kind: 'status', status });
    },
  };
}
