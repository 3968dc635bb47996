/**
 * Slack's Agent messaging experience (issue 37): `app_context_changed` says what a person is
 * looking at (a channel, canvas, list or message, most relevant first) while the app is visible;
 * it is remembered per person and given to their next DM turn, once (until it changes again).
 * Kept in the store, so the replica that answers the DM knows what another one heard. Only the ids
 * Slack sent are kept: nothing is read from what they point at.
 * Which view's events arrive (the agent view's, or the retiring assistant view's) is recorded too:
 * `tsuka doctor` reads it to tell an app still on `assistant_view` what to change.
 * https://docs.slack.dev/reference/events/app_context_changed
 */
import type { KeyValueNamespace } from '../../core/store/key-value-namespace.js';
import type { Logger } from '../../core/logger.js';
import { isWellFormedEntity, MAX_VIEWED_ENTITIES, type ViewedEntity, type ViewingContext } from '../../commands/context/viewing-context.js';

/** What a person looks at is forgotten after this long without a DM. */
export const APP_CONTEXT_TTL_MS = 60 * 60 * 1000;
export { SLACK_APP_CONTEXT_NAMESPACE, SLACK_VIEWS_KEY, SLACK_VIEWS_NAMESPACE, type SlackViewsSeen } from '../../commands/context/platform-views.js';
import { SLACK_VIEWS_KEY, type SlackViewsSeen } from '../../commands/context/platform-views.js';

interface StoredContext {
  entities: ViewedEntity[];
}

export interface AppContexts {
  /** `app_context_changed` for `user`: remembered (an empty context forgets). */
  changed(team: string, user: string, context: unknown): Promise<void>;
  /** What `user` is looking at, once: the next call says nothing until it changes. */
  take(team: string, user: string): Promise<ViewingContext | undefined>;
  /** At start: an app whose latest view events were the assistant view's is told (in the log) what to change; never rejects. */
  atStart(): Promise<void>;
  /** An event of one view arrived (recorded at most once a minute per view); never rejects. */
  seen(view: keyof SlackViewsSeen): Promise<void>;
}

/** Slack's entities as ids, unknown types and malformed ids dropped. */
export function entitiesOf(context: unknown): ViewedEntity[] {
  const raw = (context as { entities?: unknown } | undefined)?.entities;
  if (!Array.isArray(raw)) return [];
  const entities = raw.flatMap((item): ViewedEntity[] => {
    const { type, value } = (item ?? {}) as { type?: unknown; value?: unknown };
    if (typeof value === 'string') {
      if (type === 'slack#/types/channel_id') return [{ kind: 'channel', id: value }];
      if (type === 'slack#/types/canvas_id') return [{ kind: 'canvas', id: value }];
      if (type === 'slack#/types/list_id') return [{ kind: 'list', id: value }];
    }
    if (type === 'slack#/types/message_context' && typeof value === 'object' && value !== null) {
      const { channel_id: channel, message_ts: ts } = value as { channel_id?: unknown; message_ts?: unknown };
      if (typeof channel === 'string' && typeof ts === 'string') return [{ kind: 'message', channel, ts }];
    }
    return [];
  });
  return entities.filter(isWellFormedEntity).slice(0, MAX_VIEWED_ENTITIES);
}

const SEEN_EVERY_MS = 60_000;

export function createAppContexts(options: {
  contexts: KeyValueNamespace<StoredContext>;
  views: KeyValueNamespace<SlackViewsSeen>;
  logger: Logger;
}): AppContexts {
  const { contexts, views, logger } = options;
  const key = (team: string, user: string) => `${team}/${user}`;
  const lastRecorded = new Map<keyof SlackViewsSeen, number>();
  // A change still being written: a DM that follows it at once waits for it (in this process).
  const pending = new Map<string, Promise<void>>();
  let warned = false;
  const warnAssistantView = () => {
    if (warned) return;
    warned = true;
    logger.warn(
      'This Slack app is on the assistant view (assistant_thread_started arrived), which Slack retires: switch its manifest to features.agent_view with an agent_description and subscribe app_home_opened and app_context_changed (`tsuka manifest slack` prints it)',
    );
  };
  return {
    async atStart() {
      const seen = await views.get(SLACK_VIEWS_KEY).catch(() => undefined);
      if (seen?.assistant !== undefined && (seen.agent ?? 0) < seen.assistant) warnAssistantView();
    },
    async changed(team, user, context) {
      const entities = entitiesOf(context);
      const at = key(team, user);
      const write = (pending.get(at) ?? Promise.resolve())
        .catch(() => undefined)
        .then(async () => {
          if (entities.length === 0) await contexts.delete(at);
          else await contexts.set(at, { entities }, APP_CONTEXT_TTL_MS);
        });
      pending.set(at, write);
      try {
        await write;
      } finally {
        if (pending.get(at) === write) pending.delete(at);
      }
    },
    async take(team, user) {
      await pending.get(key(team, user))?.catch(() => undefined);
      const stored = await contexts.get(key(team, user));
      if (!stored) return undefined;
      await contexts.delete(key(team, user));
      return { platform: 'Slack', entities: stored.entities };
    },
    async seen(view) {
      const now = Date.now();
      if (view === 'assistant') warnAssistantView();
      if (now - (lastRecorded.get(view) ?? 0) < SEEN_EVERY_MS) return;
      lastRecorded.set(view, now);
      await views
        .update(SLACK_VIEWS_KEY, (current) => ({ ...current, [view]: now }))
        .catch((error: unknown) => logger.warn('could not record which Slack view events arrived', { error }));
    },
  };
}
