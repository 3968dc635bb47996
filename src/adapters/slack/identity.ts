/**
 * A character's identity on Slack: `username` and `icon_emoji`/`icon_url` with the
 * chat:write.customize scope (https://api.slack.com/methods/chat.postMessage#authorship), and how
 * Slack says the scope is missing. Shared by the surface and the reply stream.
 */
import type { Identity } from '../../commands/chat-surface.js';

/** `username` and `icon_emoji`/`icon_url` for a character (chat:write.customize). */
export function identityFields(identity: Identity | undefined): Record<string, string> {
  if (!identity) return {};
  // A picture Slack can fetch (TSUKA_PUBLIC_URL or the character's URL) wins over the emoji.
  if (identity.avatarUrl && /^https?:\/\//.test(identity.avatarUrl)) return { username: identity.name, icon_url: identity.avatarUrl };
  const avatar = identity.avatar;
  if (!avatar) return { username: identity.name };
  if (/^https?:\/\//.test(avatar)) return { username: identity.name, icon_url: avatar };
  if (/^:[\w+-]+:$/.test(avatar)) return { username: identity.name, icon_emoji: avatar };
  return { username: identity.name };
}

/** True when Slack refused a call because chat:write.customize is missing. */
export const isMissingCustomize = (error: unknown): boolean => {
  const data = (error as { data?: { error?: string; needed?: string } }).data;
  return data?.error === 'missing_scope' && (data.needed === undefined || data.needed === 'chat:write.customize');
};
