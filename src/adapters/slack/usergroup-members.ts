/**
 * The members of a Slack user group, for the approval policy's `{"slackUsergroup": "S…"}` groups
 * (issue 39): usergroups.users.list (scope usergroups:read). Asked when an approval is asked, never
 * cached: someone removed from the group a minute ago no longer decides. An error is an error —
 * the caller then treats the group as empty (nobody can approve: fail closed).
 * https://docs.slack.dev/reference/methods/usergroups.users.list
 */
import type { WebClient } from '@slack/web-api';
import type { SlackCaller } from './call-budget.js';
import type { PolicyGroup } from '../../core/policy/policy-schema.js';
import type { UserRef } from '../../commands/chat-surface.js';
import { userRef } from './ids.js';

export function createSlackUsergroupMembers(client: WebClient, caller: SlackCaller) {
  return async function groupMembers(group: PolicyGroup): Promise<UserRef[]> {
    if (!('slackUsergroup' in group)) throw new Error('on Slack a group is a Slack user group or named members');
    const answer = (await caller({
      method: 'usergroups.users.list',
      priority: 'final',
      call: () => client.usergroups.users.list({ usergroup: group.slackUsergroup }),
    })) as { users?: string[] };
    return (answer.users ?? []).map(userRef);
  };
}
