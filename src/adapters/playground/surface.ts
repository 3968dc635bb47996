/**
 * The chat surface on the playground's in-memory chat. Characters post under their own name and
 * avatar (there is no permission to miss); a thread is named by its root message, as on Slack;
 * ephemerals and uploads are kept for the page, which is the only reader.
 */
import type { ChatSurface, ThreadRef, UserRef } from '../../commands/chat-surface.js';
import { authorView, buttonViews, menuViews } from './cards.js';
import { channelRef, decodeChannel, decodeMessage, DIRECT_CHANNEL_ID, messageRef, PLAYGROUND_USER } from './ids.js';
import { PlaygroundNotFoundError, type PlaygroundState } from './state.js';
import { createPlaygroundThreadHistory } from './thread-history.js';
import { TsukaError } from '../../core/errors.js';

/** An attached file larger than the command layer reads. */
export class PlaygroundFileTooLargeError extends TsukaError {
  constructor(name: string, size: number, maxBytes: number) {
    super('playground_file_too_large', `${name} is ${size} bytes, over the ${maxBytes}-byte limit`);
  }
}

/** No platform limit; long replies still split so that the page reads like a chat. */
export const PLAYGROUND_MAX_MESSAGE_LENGTH = 4000;

export interface PlaygroundSurfaceOptions {
  state: PlaygroundState;
  editIntervalMs: number;
}

export function createPlaygroundSurface(options: PlaygroundSurfaceOptions): ChatSurface {
  const { state } = options;

  /** The root message of the thread a ref names (a reply's ref names its root's thread). */
  const rootOf = (thread: ThreadRef): { channel: string; root: string } => {
    const { channel, messageId } = decodeMessage(thread);
    const message = state.message(channel, messageId);
    return { channel, root: message.thread ?? message.id };
  };

  return {
    platform: 'playground',
    limits: { maxMessageLength: PLAYGROUND_MAX_MESSAGE_LENGTH, editIntervalMs: options.editIntervalMs },
    async threadFor({ message, existingThread }) {
      if (existingThread) return existingThread;
      const { channel, root } = rootOf(message);
      return messageRef(channel, root);
    },
    async postRoot({ channel, text, identity }) {
      const root = state.addMessage({ channel: decodeChannel(channel), author: authorView(identity), text });
      return { message: root.ref, thread: root.ref };
    },
    async post({ thread, text, identity, buttons }) {
      const { channel, root } = rootOf(thread);
      return state.addMessage({ channel, thread: root, author: authorView(identity), text, buttons: buttonViews(buttons), menus: menuViews(buttons) }).ref;
    },
    async edit({ message, text, identity, buttons }) {
      const { channel, messageId } = decodeMessage(message);
      state.editMessage(channel, messageId, {
        text,
        author: identity ? authorView(identity) : undefined,
        buttons: buttonViews(buttons),
        menus: menuViews(buttons),
      });
    },
    async clearButtons({ message }) {
      const { channel, messageId } = decodeMessage(message);
      state.editMessage(channel, messageId, { text: state.message(channel, messageId).text, buttons: [] });
    },
    async postEphemeral({ channel, thread, text }) {
      state.addEphemeral({ channel: decodeChannel(channel), thread: thread ? rootOf(thread).root : undefined, text });
    },
    async uploadFile({ channel, thread, fileName, title, content }) {
      state.addFile({ channel: decodeChannel(channel), thread: thread ? rootOf(thread).root : undefined, fileName, title, content });
    },
    async uploadToUser({ fileName, title, content }) {
      // One person uses the playground: their direct messages are one channel of its own.
      state.addChannel(DIRECT_CHANNEL_ID);
      state.addFile({ channel: DIRECT_CHANNEL_ID, fileName, title, content });
    },
    async uploadImage({ channel, thread, fileName, title, svg, altText }) {
      // The page shows it as <img src> (an SVG image runs no script); the alt text goes with it.
      state.addFile({ channel: decodeChannel(channel), thread: thread ? rootOf(thread).root : undefined, fileName, title, content: svg, image: { altText } });
    },
    async setStatus({ thread, text }) {
      const { channel, root } = rootOf(thread);
      state.setStatus({ channel, thread: root, text });
    },
    channelOf(thread) {
      return channelRef(decodeMessage(thread).channel);
    },
    // One person at a time uses the playground, the host's operator (it answers loopback clients with the
    // key printed at start): the requester decides, even DANGEROUS calls (channels stay separate scopes).
    channelInfo: async (channel) => {
      const id = decodeChannel(channel);
      return id === DIRECT_CHANNEL_ID ? { kind: 'dm', members: 2, operator: true } : { kind: 'private', name: id, members: 2, operator: true };
    },
    // The one person of the playground is in every one of its channels.
    isMember: async (_channel, user) => user === PLAYGROUND_USER,
    // What the person wrote in the thread before calling a character in (the characters' own posts left out).
    threadHistory: createPlaygroundThreadHistory(state),
    // The bytes the page posted, read back from this chat's own store: `source` is a file id, never a URL.
    async downloadFile(file, { maxBytes }) {
      const stored = state.file(file.source);
      if (!stored?.attached) throw new PlaygroundNotFoundError(`The attached file ${file.source}`);
      if (stored.size > maxBytes) throw new PlaygroundFileTooLargeError(stored.fileName, stored.size, maxBytes);
      return new Uint8Array(Buffer.from(stored.content, 'base64'));
    },
    mention: (user: UserRef) => (user === PLAYGROUND_USER ? '@you' : `@${user.replace(/^playground:/, '')}`),
  };
}
