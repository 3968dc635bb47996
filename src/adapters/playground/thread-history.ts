/**
 * A playground thread's earlier messages (issue 23), as Slack's `conversations.replies` gives them:
 * the root and its replies written before the calling message, oldest first, from this chat's own
 * state — only the thread of the calling message's own channel. Every message the characters post
 * is the bot's own and is left out: what remains is what the person wrote, with the files they
 * attached (read back from the playground's store, as a message's own files are).
 */
import type { ContextMessage, InboundFile, ThreadHistoryRequest } from '../../commands/context/conversation-context.js';
import { decodeMessage, PLAYGROUND_USER } from './ids.js';
import type { PlaygroundMessage, PlaygroundState } from './state.js';

export function createPlaygroundThreadHistory(state: PlaygroundState) {
  return async function threadHistory(request: ThreadHistoryRequest): Promise<ContextMessage[]> {
    if (!request.thread) return [];
    const message = decodeMessage(request.message);
    const thread = decodeMessage(request.thread);
    // Never another channel's thread, whatever the ids say.
    if (thread.channel !== message.channel) return [];
    const calling = state.message(message.channel, message.messageId);
    const named = state.message(thread.channel, thread.messageId);
    const root = named.thread ?? named.id;
    if ((calling.thread ?? calling.id) !== root) return [];
    // The state keeps messages in the order they were written: those before the calling one.
    const messages = state.threadMessages(thread.channel, root);
    return messages
      .slice(
        0,
        Math.max(
          0,
          messages.findIndex((entry) => entry.id === calling.id),
        ),
      )
      .filter((entry) => entry.author.kind === 'user')
      .slice(-request.limit)
      .map((entry) => toContextMessage(entry, state));
  };
}

function toContextMessage(message: PlaygroundMessage, state: PlaygroundState): ContextMessage {
  const files: InboundFile[] = (message.attachments ?? []).flatMap((id) => {
    const file = state.file(id);
    return file?.attached ? [{ name: file.fileName, mediaType: file.attached.mediaType, size: file.size, source: file.id }] : [];
  });
  return {
    user: PLAYGROUND_USER,
    userName: message.author.name,
    text: message.text,
    at: message.createdAt,
    ...(files.length > 0 ? { fileNames: files.map((file) => file.name), files } : {}),
  };
}
