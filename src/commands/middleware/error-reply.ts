import { TsukaError } from '../../core/errors.js';
import type { Middleware } from './compose.js';
import { replyToUser } from './reply-to-user.js';

/**
 * The last line of defence: whatever fails below is logged with its stack and told to the user in
 * one sentence. A failure to tell the user is logged too, never thrown back to the adapter.
 */
export const errorReply: Middleware = async (event, context, next) => {
  try {
    await next();
  } catch (error) {
    context.logger.error('event failed', { eventId: event.id, type: event.type, error });
    const sentence = error instanceof TsukaError ? error.message : 'Something went wrong on my side; the details are in the bot log.';
    try {
      await replyToUser(event, context, `⚠️ ${sentence}`);
    } catch (replyError) {
      context.logger.error('could not tell the user about an error', { eventId: event.id, error: replyError });
    }
  }
};
