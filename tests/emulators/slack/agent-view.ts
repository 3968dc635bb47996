/**
 * Slack's Agent messaging experience (manifest `features.agent_view`), the events it sends:
 * - `app_home_opened` with `tab: "messages"` when a person opens the app's Messages tab
 *   (https://docs.slack.dev/reference/events/app_home_opened): `user`, `channel` (the DM),
 *   `tab`, `event_ts`;
 * - `app_context_changed` when what the person is looking at changes while the app is visible
 *   (https://docs.slack.dev/reference/events/app_context_changed): `context.entities`, ordered by
 *   relevance, each `{type, value, team_id}` with type `slack#/types/channel_id`, `…/canvas_id`,
 *   `…/list_id` or `…/message_context` (value `{channel_id, message_ts}`); `context: {}` when
 *   nothing is in view. The reference page's example shows only `type` and `context`; @slack/types
 *   (AppContextChangedEvent) adds `user`, `channel` and `event_ts`, which this emulator sends.
 *   Only an agent-view app receives it.
 * In the agent view every DM message is a thread root (no assistant thread is opened first).
 */
import type { MessagingView } from './assistant-threads.js';

export type AppContextEntity =
  | { type: 'slack#/types/channel_id'; value: string }
  | { type: 'slack#/types/canvas_id'; value: string }
  | { type: 'slack#/types/list_id'; value: string }
  | { type: 'slack#/types/message_context'; value: { channel_id: string; message_ts: string } };

export function buildMessagesTabOpened(input: { userId: string; channelId: string; eventTs: string }): Record<string, unknown> {
  return { type: 'app_home_opened', user: input.userId, channel: input.channelId, tab: 'messages', event_ts: input.eventTs };
}

export function buildAppContextChanged(input: {
  view: MessagingView;
  userId: string;
  channelId: string;
  teamId: string;
  entities: readonly AppContextEntity[];
  eventTs: string;
}): Record<string, unknown> {
  if (input.view !== 'agent') throw new Error('app_context_changed reaches only an app whose manifest enables agent_view (setMessagingView("agent"))');
  return {
    type: 'app_context_changed',
    user: input.userId,
    channel: input.channelId,
    context: input.entities.length === 0 ? {} : { entities: input.entities.map((entity) => ({ ...entity, team_id: input.teamId })) },
    event_ts: input.eventTs,
  };
}
