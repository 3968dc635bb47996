/**
 * `/tsuka queue`: who waits for the model, every replica's requests in the order they will be
 * served — place, class, requester, character, channel and expected wait. Never what was asked:
 * a request's text is not even kept with it. A channel is named only when the asker can see it
 * (their own channel, a request of their own, or a public channel of the same workspace);
 * anything else is "a private channel".
 */
import { SLOT_PROMOTION_MS, type SlotTicket } from '../../core/coordination/slot-priority.js';
import type { QueuedRequest } from '../../core/model/language-model.js';
import { isQueuedModel } from '../../core/model/queued-model.js';
import type { ChannelInfo, ChatSurface } from '../chat-surface.js';
import type { CommandDependencies } from '../command-dependencies.js';
import type { SlashCommandEvent } from '../inbound-event.js';
import { queuePlace } from '../runs/queue-note.js';

/** More would not fit one message on every platform; the rest is counted. */
const LISTED_WAITERS = 20;

const CLASS_LABELS: Record<SlotTicket['priority'], string> = { person: '🙋 person', workflow: '🛰 workflow', schedule: '⏰ schedule' };

export async function handleQueueSubcommand(event: SlashCommandEvent, surface: ChatSurface, deps: CommandDependencies): Promise<void> {
  const reply = (text: string) => event.reply(deps.maskSecrets(text));
  const model = deps.models.current()?.model;
  if (!model || !isQueuedModel(model)) return reply('No model queue: no model server is connected.');
  const waiting = await model.queue();
  if (waiting.length === 0) return reply('Nobody waits for the model.');
  const channelNames = createChannelNamer(event, surface);
  const lines = await Promise.all(
    waiting.slice(0, LISTED_WAITERS).map(async (request) => describeWaiter(request, surface, await channelNames(request.ticket))),
  );
  const more = waiting.length > LISTED_WAITERS ? [`… and ${waiting.length - LISTED_WAITERS} more`] : [];
  return reply(
    [
      `**Model queue** · ${waiting.length} waiting · people first, then running workflows, then schedules (a wait over ${Math.round(SLOT_PROMOTION_MS / 60_000)} min counts as a person's)`,
      ...lines,
      ...more,
    ].join('\n'),
  );
}

function describeWaiter(request: QueuedRequest, surface: ChatSurface, channel: string): string {
  const { ticket } = request;
  const requester = ticket.requester
    ? ticket.platform === surface.platform
      ? surface.mention(ticket.requester)
      : (ticket.requesterName ?? 'someone')
    : 'TSUKA';
  return [queuePlace(request), CLASS_LABELS[ticket.priority], requester, ticket.character ?? 'a model call', channel].join(' · ');
}

/** Names a request's channel for the asker: `#name` when they can see it, else "a private channel". */
function createChannelNamer(event: Pick<SlashCommandEvent, 'channel' | 'user' | 'platform'>, surface: ChatSurface): (ticket: SlotTicket) => Promise<string> {
  const infos = new Map<string, Promise<ChannelInfo | undefined>>();
  const infoOf = (channel: string): Promise<ChannelInfo | undefined> => {
    let found = infos.get(channel);
    if (!found) {
      // Unknown counts as private: a name is shown only when the platform says the channel is open.
      found = surface.channelInfo ? surface.channelInfo(channel).catch(() => undefined) : Promise.resolve(undefined);
      infos.set(channel, found);
    }
    return found;
  };
  return async (ticket) => {
    if (!ticket.channel || ticket.platform !== surface.platform) return 'a private channel';
    const own = ticket.channel === event.channel || ticket.requester === event.user;
    const info = await infoOf(ticket.channel);
    if (!own && info?.kind !== 'public') return 'a private channel';
    if (info?.kind === 'dm') return ticket.channel === event.channel ? 'this direct message' : 'a direct message';
    if (info?.name) return `#${info.name}`;
    return ticket.channel === event.channel ? 'this channel' : 'a private channel';
  };
}
