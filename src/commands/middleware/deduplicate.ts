import type { Middleware } from './compose.js';

/** Slack re-delivers events it thinks were missed and may send one twice: answer each id once. */
export function deduplicate(dedupe: { markSeen(eventId: string): Promise<boolean> }): Middleware {
  return async (event, context, next) => {
    if (await dedupe.markSeen(`${event.platform}:${event.type}:${event.id}`)) return next();
    context.logger.debug('duplicate event dropped', { eventId: event.id, type: event.type });
  };
}
