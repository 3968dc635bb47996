/**
 * Channels as Slack describes them: public or private, DMs, and who is a member. Methods:
 * conversations.info (https://docs.slack.dev/reference/methods/conversations.info, with
 * `include_num_members`) and conversations.members (…/conversations.members, paged by cursor).
 * A channel the test never defined is a public channel whose members are the bot and U1…U3.
 */
import { stringField, type RequestFields } from './http-body.js';

export interface EmulatedChannel {
  id: string;
  name: string;
  isPrivate: boolean;
  /** A direct message between the bot and `members[0]`. */
  isIm: boolean;
  /** User ids, the bot included when it is in the channel. */
  members: string[];
}

export interface Conversations {
  define(channel: Partial<EmulatedChannel> & { id: string }): EmulatedChannel;
  get(id: string): EmulatedChannel;
  defineUsergroup(id: string, users: string[]): void;
  handlers: Record<string, (fields: RequestFields) => Record<string, unknown>>;
}

/** Checked per channel kind in the handlers (channels:read, groups:read, im:read), not per method. */
export const CONVERSATION_SCOPES: Record<string, string | undefined> = {
  'conversations.info': undefined,
  'conversations.members': undefined,
  'usergroups.users.list': 'usergroups:read',
};

/** The read scope a channel of this kind needs (channels:read is checked per method, the others here). */
const readScope = (channel: EmulatedChannel) => (channel.isIm ? 'im:read' : channel.isPrivate ? 'groups:read' : 'channels:read');

export function createConversations(botUserId: string, scopes: () => readonly string[]): Conversations {
  const channels = new Map<string, EmulatedChannel>();
  const usergroups = new Map<string, string[]>();
  const get = (id: string): EmulatedChannel =>
    channels.get(id) ?? { id, name: id.toLowerCase(), isPrivate: id.startsWith('G'), isIm: id.startsWith('D'), members: [botUserId, 'U1', 'U2', 'U3'] };
  const info = (channel: EmulatedChannel, withCount: boolean) => ({
    id: channel.id,
    ...(channel.isIm
      ? { is_im: true, user: channel.members.find((member) => member !== botUserId), is_user_deleted: false }
      : {
          name: channel.name,
          is_channel: !channel.isPrivate,
          is_group: false,
          is_im: false,
          is_mpim: false,
          is_private: channel.isPrivate,
          is_archived: false,
          is_general: channel.name === 'general',
          is_member: channel.members.includes(botUserId),
          ...(withCount ? { num_members: channel.members.length } : {}),
        }),
    created: 1_700_000_000,
  });
  /** Slack's answer when the channel cannot be read: not found, or a scope is missing. */
  const refusal = (channel: EmulatedChannel) => {
    if (channel.isPrivate && !channel.members.includes(botUserId)) return { ok: false, error: 'channel_not_found' };
    const needed = readScope(channel);
    return scopes().includes(needed) ? undefined : { ok: false, error: 'missing_scope', needed, provided: scopes().join(',') };
  };
  return {
    define(partial) {
      const channel = { ...get(partial.id), ...partial };
      channels.set(channel.id, channel);
      return channel;
    },
    get,
    defineUsergroup: (id, users) => void usergroups.set(id, [...users]),
    handlers: {
      // https://docs.slack.dev/reference/methods/usergroups.users.list (scope usergroups:read, checked per method).
      'usergroups.users.list': (fields) => {
        const id = stringField(fields, 'usergroup');
        const users = id ? usergroups.get(id) : undefined;
        return users ? { ok: true, users: [...users] } : { ok: false, error: 'no_such_subteam' };
      },
      'conversations.info': (fields) => {
        const id = stringField(fields, 'channel');
        if (!id) return { ok: false, error: 'channel_not_found' };
        const channel = get(id);
        // A private channel the bot is not in does not exist for it.
        return refusal(channel) ?? { ok: true, channel: info(channel, String(fields.include_num_members) === 'true') };
      },
      'conversations.members': (fields) => {
        const id = stringField(fields, 'channel');
        if (!id) return { ok: false, error: 'channel_not_found' };
        const channel = get(id);
        const refused = refusal(channel);
        if (refused) return refused;
        const limit = Math.max(1, Math.min(1000, Number(fields.limit) || 100));
        const start = Number(stringField(fields, 'cursor') ?? '0') || 0;
        const page = channel.members.slice(start, start + limit);
        const next = start + limit < channel.members.length ? String(start + limit) : '';
        return { ok: true, members: page, response_metadata: { next_cursor: next } };
      },
    },
  };
}
