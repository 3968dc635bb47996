/**
 * A Discord thread's earlier messages (issue 23): `GET /channels/{thread}/messages?before=…` (newest
 * first, at most 100) plus the message the thread was started from (in the parent channel, with the
 * thread's id), and for a reply the message replied to and the chain above it — only within the
 * calling message's own channel. This bot's messages (its own and its webhooks') are left out;
 * other bots' and webhooks' are marked. Without the Message Content intent Discord gives other
 * people's messages empty: they are left out too.
 * https://discord.com/developers/docs/resources/message#get-channel-messages
 */
import { Routes, type REST } from 'discord.js';
import type { ContextMessage, ThreadHistoryRequest } from '../../commands/context/conversation-context.js';
import { decodeMessage, decodeThread, DIRECT_GUILD, userRef } from './ids.js';

/** Discord's page size limit. */
const MAX_PAGE = 100;
/** Replies followed upwards at most. */
const MAX_REPLY_CHAIN = 5;
const UNKNOWN_MESSAGE = 10008;

interface DiscordMessage {
  id: string;
  channel_id?: string;
  content?: string;
  timestamp?: string;
  webhook_id?: string;
  application_id?: string;
  author?: { id?: string; username?: string; global_name?: string | null; bot?: boolean };
  member?: { nick?: string | null };
  attachments?: { filename?: string; url?: string; size?: number; content_type?: string }[];
  message_reference?: { message_id?: string; channel_id?: string };
}

export function createDiscordThreadHistory(rest: () => REST, bot: () => { userId: string; applicationId: string }) {
  const fetchOne = async (channel: string, id: string): Promise<DiscordMessage | undefined> => {
    try {
      return (await rest().get(Routes.channelMessage(channel, id))) as DiscordMessage;
    } catch (error) {
      if ((error as { code?: unknown }).code === UNKNOWN_MESSAGE || (error as { status?: unknown }).status === 404) return undefined;
      throw error;
    }
  };

  return async function threadHistory(request: ThreadHistoryRequest): Promise<ContextMessage[]> {
    const message = decodeMessage(request.message);
    const collected = new Map<string, DiscordMessage>();
    if (request.thread) {
      const thread = decodeThread(request.thread);
      // Never another channel's messages, whatever the ids say.
      if (thread.guild !== message.guild || thread.parent !== message.parent || thread.thread !== message.channel) return [];
      const page = (await rest().get(Routes.channelMessages(thread.thread), {
        query: new URLSearchParams({ before: message.message, limit: String(Math.min(MAX_PAGE, request.limit)) }),
      })) as DiscordMessage[];
      for (const entry of page) collected.set(entry.id, entry);
      if (thread.guild !== DIRECT_GUILD && thread.thread !== thread.parent) {
        const starter = await fetchOne(thread.parent, thread.thread);
        if (starter) collected.set(starter.id, starter);
      }
    }
    if (request.replyTo) {
      const reply = decodeMessage(request.replyTo);
      if (reply.guild !== message.guild || reply.channel !== message.channel) return [];
      let next: string | undefined = reply.message;
      for (let depth = 0; next && depth <= MAX_REPLY_CHAIN; depth += 1) {
        const found: DiscordMessage | undefined = collected.get(next) ?? (await fetchOne(message.channel, next));
        if (!found) break;
        collected.set(found.id, found);
        const reference: DiscordMessage['message_reference'] = found.message_reference;
        next = reference?.message_id && (reference.channel_id ?? message.channel) === message.channel ? reference.message_id : undefined;
      }
    }
    const { userId, applicationId } = bot();
    return [...collected.values()]
      .filter((entry) => entry.id !== message.message && BigInt(entry.id) < BigInt(message.message))
      .filter((entry) => entry.author?.id !== userId && !(entry.webhook_id && entry.application_id === applicationId))
      .filter((entry) => (entry.content ?? '') !== '' || (entry.attachments ?? []).length > 0)
      .sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1))
      .slice(-request.limit)
      .map(toContextMessage);
  };
}

function toContextMessage(entry: DiscordMessage): ContextMessage {
  const fromOtherBot = entry.author?.bot === true || entry.webhook_id !== undefined;
  const fileNames = (entry.attachments ?? []).flatMap((file) => (file.filename ? [file.filename] : []));
  // Signed CDN links, downloaded like a mention's attachments (Discord's own hosts only).
  const files = (entry.attachments ?? []).flatMap((file) =>
    file.filename && file.url
      ? [
          {
            name: file.filename,
            source: file.url,
            ...(typeof file.size === 'number' ? { size: file.size } : {}),
            ...(file.content_type ? { mediaType: file.content_type } : {}),
          },
        ]
      : [],
  );
  return {
    user: userRef(entry.author?.id ?? 'unknown'),
    userName: entry.member?.nick ?? entry.author?.global_name ?? entry.author?.username ?? 'someone',
    text: entry.content ?? '',
    at: entry.timestamp ? Date.parse(entry.timestamp) : 0,
    ...(fromOtherBot ? { fromOtherBot } : {}),
    ...(fileNames.length > 0 ? { fileNames } : {}),
    ...(files.length > 0 ? { files } : {}),
  };
}
