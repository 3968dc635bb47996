/** A tiny middleware runner: each middleware may act, stop, or call `next()`. */
import type { InboundEvent } from '../inbound-event.js';
import type { ChatSurface } from '../chat-surface.js';
import type { Logger } from '../../core/logger.js';

export interface EventContext {
  surface: ChatSurface;
  logger: Logger;
}

export type Middleware = (event: InboundEvent, context: EventContext, next: () => Promise<void>) => Promise<void>;
export type EventHandler = (event: InboundEvent, context: EventContext) => Promise<void>;

export function compose(middlewares: Middleware[], handler: EventHandler): EventHandler {
  return (event, context) => {
    const dispatch = (index: number): Promise<void> => {
      const middleware = middlewares[index];
      if (!middleware) return handler(event, context);
      let called = false;
      return middleware(event, context, () => {
        if (called) throw new Error('next() called twice');
        called = true;
        return dispatch(index + 1);
      });
    };
    return dispatch(0);
  };
}
