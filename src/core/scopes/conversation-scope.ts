/**
 * Where a conversation happens, and the memory scope that follows from it: what is said in a
 * channel stays in that channel, a DM stays with its person, `tsuka ask` with the local user.
 * Scope keys are built from the adapters' opaque ids without decoding them (a channel ref already
 * names its platform and team: `slack:T1/C1`, `discord:G1/P1`, `playground:general`).
 */
import { SHARED_MEMORY_SCOPE } from '../memory/memory-fact.js';

/** Where a conversation happens. */
export type ConversationPlace =
  /** A channel (threads inside it belong to it): its opaque channel ref. */
  | { kind: 'channel'; channel: string }
  /** A one-to-one conversation with the bot: the person's opaque user ref. */
  | { kind: 'direct'; user: string }
  /** `tsuka ask` on the host: the operating-system user (or `local`). */
  | { kind: 'local'; osUser?: string };

/** What the command layer knows of a conversation. */
export interface ConversationFacts {
  /** Opaque channel ref (`slack:T1/C1`). */
  channel: string;
  /** Opaque user ref of the person speaking (`slack:U1`). */
  user: string;
  /** Set by whoever knows it is a DM; otherwise read from the channel ref's platform form. */
  direct?: boolean;
}

const SCOPE_PREFIXES = ['channel:', 'user:', 'local:'] as const;

/**
 * Slack names a DM's channel `D…` (a channel `C…`, a private channel `C…` or `G…`). Discord DMs and
 * group DMs have no guild, and the adapter does not deliver them; the playground has no DMs.
 */
const SLACK_DIRECT_CHANNEL = /^slack:[^/]+\/D[A-Z0-9]+$/;

/** The place of a conversation in `facts.channel`, spoken in by `facts.user`. */
export function conversationPlace(facts: ConversationFacts): ConversationPlace {
  const direct = facts.direct ?? SLACK_DIRECT_CHANNEL.test(facts.channel);
  return direct ? { kind: 'direct', user: facts.user } : { kind: 'channel', channel: facts.channel };
}

/** The memory scope of a place: `channel:<channel ref>`, `user:<user ref>` or `local:<os user>`. */
export function memoryScopeOf(place: ConversationPlace): string {
  switch (place.kind) {
    case 'channel':
      return `channel:${place.channel}`;
    case 'direct':
      return `user:${place.user}`;
    case 'local':
      return `local:${place.osUser?.trim() || 'local'}`;
  }
}

/** True for a scope of a conversation (channel, DM, local user) — not shared, not from before scopes. */
export function isConversationScope(scope: string): boolean {
  return SCOPE_PREFIXES.some((prefix) => scope.startsWith(prefix) && scope.length > prefix.length);
}

/** True for facts every conversation reads: `shared`, and the scopes of facts saved before conversation scopes. */
export function isSharedScope(scope: string): boolean {
  return scope === SHARED_MEMORY_SCOPE || !isConversationScope(scope);
}
