/**
 * Which messaging experience a Slack app is on (issue 37), as the Slack adapter records it from the
 * events that arrive and `tsuka doctor` reads it back from the store: kept here, apart from the
 * adapter, so that doctor names the record without loading the Slack adapter (the CLI stays lean).
 */
/** The store's namespaces: what each person looks at, and which view's events arrived. */
export const SLACK_APP_CONTEXT_NAMESPACE = 'slack-app-context';
export const SLACK_VIEWS_NAMESPACE = 'slack-views';
/** The store's key of the view events seen (`SlackViewsSeen`). */
export const SLACK_VIEWS_KEY = 'views-seen';

/** When each messaging experience's events last arrived (ms since the epoch). */
export interface SlackViewsSeen {
  /** `app_home_opened` on the Messages tab or `app_context_changed`. */
  agent?: number;
  /** `assistant_thread_started` or `assistant_thread_context_changed`. */
  assistant?: number;
}
