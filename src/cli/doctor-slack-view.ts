/**
 * Doctor's word on Slack's messaging experience (issue 37). Slack retires the assistant view
 * (`assistant_view`; new apps can only use the Agent messaging experience, `agent_view`), and the
 * app's manifest cannot be read with a bot token: what the adapter recorded of the events that
 * arrived (`assistant_thread_started` or the Messages tab's `app_home_opened`, `app_context_changed`)
 * tells which one the app is on.
 */
import type { SlackViewsSeen } from '../commands/context/platform-views.js';

export interface SlackViewVerdict {
  level: 'ok' | 'info' | 'warn';
  text: string;
}

/** What to change in the app's manifest to move it from the assistant view to the agent view. */
export const AGENT_VIEW_MIGRATION =
  'in the app’s manifest (https://api.slack.com/apps → your app → App Manifest) replace features.assistant_view with features.agent_view and an agent_description (at most 300 characters), and in settings.event_subscriptions.bot_events replace assistant_thread_started with app_home_opened and app_context_changed — `tsuka manifest slack` prints the whole manifest (Slack does not let an app go back to the assistant view)';

const when = (at: number) => new Date(at).toISOString().replace(/\.\d+Z$/, 'Z');

export function slackViewVerdict(seen: SlackViewsSeen | undefined): SlackViewVerdict {
  const agent = seen?.agent;
  const assistant = seen?.assistant;
  if (assistant !== undefined && (agent === undefined || agent < assistant))
    return {
      level: 'warn',
      text: `Slack messaging experience: the app is on the assistant view (assistant_thread_started arrived, last at ${when(assistant)}), which Slack retires — DMs keep working meanwhile\n    → ${AGENT_VIEW_MIGRATION}`,
    };
  if (agent !== undefined) return { level: 'ok', text: `Slack messaging experience: the agent view (its events arrived, last at ${when(agent)})` };
  return {
    level: 'info',
    text: 'Slack messaging experience: no view event recorded yet (open the app’s Messages tab once, then run doctor again); the manifest `tsuka manifest slack` prints uses the agent view',
  };
}
