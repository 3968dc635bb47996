/**
 * What the person was looking at when they wrote (issue 37: Slack's agent view sends
 * `app_context_changed`): a channel, a canvas, a list or a message, most relevant first. Only the
 * ids the platform sent — never the content of what is viewed (the person may see a channel the bot
 * cannot, and the bot must not read one for them). Serialisable: it travels with a queued turn.
 */
import { fenceUntrusted } from '../../core/safety/untrusted-content.js';

export type ViewedEntity = { kind: 'channel' | 'canvas' | 'list'; id: string } | { kind: 'message'; channel: string; ts: string };

export interface ViewingContext {
  /** The platform's name, as the person knows it ("Slack"). */
  platform: string;
  entities: ViewedEntity[];
}

/** At most this many entities reach the prompt (Slack orders them by relevance). */
export const MAX_VIEWED_ENTITIES = 5;

const ID = /^[A-Z0-9]{2,32}$/;
const TS = /^\d{1,12}\.\d{1,8}$/;

/** True when every field is an id or a timestamp in the platform's format: nothing else may reach the prompt. */
export function isWellFormedEntity(entity: ViewedEntity): boolean {
  return entity.kind === 'message' ? ID.test(entity.channel) && TS.test(entity.ts) : ID.test(entity.id);
}

function describe(entity: ViewedEntity): string {
  switch (entity.kind) {
    case 'channel':
      return `the channel ${entity.id}`;
    case 'canvas':
      return `the canvas ${entity.id}`;
    case 'list':
      return `the list ${entity.id}`;
    case 'message':
      return `the message ${entity.ts} in the channel ${entity.channel}`;
  }
}

/**
 * The prompt's lines about what the person is looking at ('' when nothing), quoted as untrusted
 * (ids only — the bot has not read what they point at, and must not claim to have).
 */
export function formatViewing(viewing: ViewingContext | undefined): string {
  const entities = (viewing?.entities ?? []).filter(isWellFormedEntity).slice(0, MAX_VIEWED_ENTITIES);
  if (!viewing || entities.length === 0) return '';
  const lines = [
    `When they wrote this, the person was looking at (in ${viewing.platform}, most relevant first):`,
    ...entities.map((entity) => `- ${describe(entity)}`),
    'These are ids only: you have not read what they point at.',
  ];
  return fenceUntrusted(`what the person is looking at in ${viewing.platform}`, lines.join('\n'));
}
