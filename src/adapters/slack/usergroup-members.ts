/**
 * The members of a Slack user group, for the approval policy's `{"slackUsergroup": "S…"}` groups
 * (issue 39): usergroups.users.list (scope usergroups:read). Asked when an approval is asked, never
 * cached: someone removed from the group a minute ago no longer decides. An error is an error —
 * the caller then treats the group as empty (nobody can approve: fail closed).
 * https://docs.slack.dev/reference/methods/usergroups.users.list
 */
import type { WebClient } from '@slack/web-api';
import type { SlackCaller } from './call-budget.js';

export function createSlackUsergroupMembers(client: WebClient, caller: SlackCaller) {
  return async function usergroupMembers(usergroup: string): Promise<string[]> {
    const answer = (await caller({
      method: 'usergroups.users.list',
      priority: 'final',
      call: () => client.usergroups.users.list({ usergroup }),
    })) as { users?: string[] };
    return answer.users ?? [];
  };
}
