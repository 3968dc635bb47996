/**
 * An in-memory ChatSurface for command-layer tests: records every message, edit, ephemeral and
 * upload, and lets a test await a condition (re-checked on every change, no polling).
 */
import { isMenu, type Button, type ChannelInfo, type ChatSurface, type EditOptions, type Identity, type PostOptions } from '../../src/commands/chat-surface.js';

export interface RecordedMessage {
  ref: string;
  thread: string;
  text: string;
  identity?: Identity;
  /** Plain buttons (Stop, Approve…): a finished reply has none. */
  buttons: Button[];
  /** Menus (a finished reply's Ask another character and Re-run), shown apart from its buttons. */
  menus: Button[];
  edits: number;
  history: string[];
}

export function createMemorySurface(
  options: {
    maxMessageLength?: number;
    editIntervalMs?: number;
    /** What every channel is, or each channel (default: the playground's — one person and the bot). */
    channelInfo?: ChannelInfo | ((channel: string) => ChannelInfo);
  } = {},
) {
  const messages: RecordedMessage[] = [];
  const byRef = new Map<string, RecordedMessage>();
  const ephemerals: { user: string; text: string; thread?: string }[] = [];
  const uploads: { fileName: string; content: string; channel: string }[] = [];
  /** Files sent to one user alone (`uploadToUser`). */
  const directUploads: { user: string; fileName: string; content: string }[] = [];
  const statuses: { thread: string; text: string }[] = [];
  const waiters = new Set<() => void>();
  let counter = 0;
  const record = (message: RecordedMessage) => {
    messages.push(message);
    byRef.set(message.ref, message);
  };
  const split = (buttons: Button[] | undefined) => ({
    buttons: (buttons ?? []).filter((button) => !isMenu(button)),
    menus: (buttons ?? []).filter(isMenu),
  });
  const changed = () => {
    for (const check of [...waiters]) check();
  };

  const surface: ChatSurface & {
    messages: RecordedMessage[];
    ephemerals: typeof ephemerals;
    uploads: typeof uploads;
    directUploads: typeof directUploads;
    statuses: typeof statuses;
    inThread(thread: string): RecordedMessage[];
    waitFor(predicate: () => boolean, timeoutMs?: number): Promise<void>;
  } = {
    platform: 'playground',
    limits: { maxMessageLength: options.maxMessageLength ?? 3900, editIntervalMs: options.editIntervalMs ?? 20 },
    messages,
    ephemerals,
    uploads,
    directUploads,
    statuses,
    inThread: (thread) => messages.filter((message) => message.thread === thread),
    async threadFor({ message, existingThread }) {
      return existingThread ?? `thread:${message}`;
    },
    async postRoot({ channel, text, identity }) {
      const ref = `msg:${++counter}`;
      record({ ref, thread: `root:${channel}`, text, identity, buttons: [], menus: [], edits: 0, history: [text] });
      changed();
      return { message: ref, thread: `thread:${ref}` };
    },
    async post(post: PostOptions) {
      const ref = `msg:${++counter}`;
      record({ ref, thread: post.thread, text: post.text, identity: post.identity, ...split(post.buttons), edits: 0, history: [post.text] });
      changed();
      return ref;
    },
    async edit(edit: EditOptions) {
      const message = byRef.get(edit.message);
      if (!message) throw new Error(`no message ${edit.message}`);
      message.text = edit.text;
      Object.assign(message, split(edit.buttons));
      message.edits++;
      message.history.push(edit.text);
      changed();
    },
    async postEphemeral({ user, text, thread }) {
      ephemerals.push({ user, text, thread });
      changed();
    },
    async uploadFile({ fileName, content, channel }) {
      uploads.push({ fileName, content, channel });
      changed();
    },
    async uploadToUser({ user, fileName, content }) {
      directUploads.push({ user, fileName, content });
      changed();
    },
    async setStatus({ thread, text }) {
      statuses.push({ thread, text });
    },
    channelOf: () => 'playground:general',
    mention: (user) => `<@${user}>`,
    channelInfo: async (channel: string) =>
      (typeof options.channelInfo === 'function' ? options.channelInfo(channel) : options.channelInfo) ?? { kind: 'private', name: 'general', members: 2 },
    waitFor(predicate, timeoutMs = 5000) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          let ok = false;
          try {
            ok = predicate();
          } catch {
            ok = false;
          }
          if (ok) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve();
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `waitFor timed out; messages:\n${messages.map((m) => `${m.ref} [${m.thread}] ${m.text.slice(0, 120)}`).join('\n')}\nephemerals: ${JSON.stringify(ephemerals)}`,
            ),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
  return surface;
}
