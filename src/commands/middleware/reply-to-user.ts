import type { EventContext } from './compose.js';
import type { InboundEvent } from '../inbound-event.js';

/** Tells only the user who sent `event` something, by the best means the event offers. */
export async function replyToUser(event: InboundEvent, context: EventContext, text: string): Promise<void> {
  if (event.type === 'slash-command') return event.reply(text);
  if (event.type === 'button-action') return event.replyEphemeral(text);
  await context.surface.postEphemeral({ channel: event.channel, thread: event.thread, user: event.user, text });
}
