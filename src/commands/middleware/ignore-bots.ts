import type { Middleware } from './compose.js';

/** Drops messages written by bots (this one included), so the bot never answers itself or loops with another bot. */
export const ignoreBots: Middleware = async (event, _context, next) => {
  if (event.fromBot) return;
  await next();
};
