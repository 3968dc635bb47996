import type { Middleware } from './compose.js';

/**
 * Slack re-delivers events it thinks were missed and may send one twice: answer each id once. A
 * message can also come back under a new event id (a replayed or re-sent delivery): a mention or
 * thread message is answered once per message (channel + ts), whatever its event id.
 */
export function deduplicate(dedupe: { markSeen(eventId: string): Promise<boolean> }): Middleware {
  return async (event, context, next) => {
    const firstDelivery = await dedupe.markSeen(`${event.platform}:${event.type}:${event.id}`);
    const firstForMessage =
      firstDelivery && (event.type === 'mention' || event.type === 'thread-message')
        ? await dedupe.markSeen(`${event.platform}:message:${event.message}`)
        : firstDelivery;
    if (firstForMessage) return next();
    context.logger.debug('duplicate event dropped', { eventId: event.id, type: event.type, sameMessage: firstDelivery });
  };
}
