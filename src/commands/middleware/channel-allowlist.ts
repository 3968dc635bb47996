import type { Middleware } from './compose.js';
import { replyToUser } from './reply-to-user.js';

/**
 * With `TSUKA_CHANNELS` set, only those channels are served. Entries may be the opaque id
 * (`slack:T0/C123`) or the platform's raw channel id (`C123`).
 */
export function channelAllowlist(channels: string[] | undefined): Middleware {
  if (!channels || channels.length === 0) return (_event, _context, next) => next();
  const allowed = new Set(channels);
  return async (event, context, next) => {
    const raw = event.channel.split(/[/:]/).at(-1) ?? event.channel;
    if (allowed.has(event.channel) || allowed.has(raw)) return next();
    if (event.type === 'slash-command' || event.type === 'button-action') {
      await replyToUser(event, context, 'TSUKA is not enabled in this channel (see TSUKA_CHANNELS).');
    }
  };
}
