/** The memory scope of a conversation, from the adapters' opaque ids (issue 21). */
import { describe, expect, it } from 'vitest';
import { channelRef as discordChannel, threadRef as discordThread, userRef as discordUser } from '../../../src/adapters/discord/ids.js';
import { channelRef as playgroundChannel, PLAYGROUND_USER } from '../../../src/adapters/playground/ids.js';
import { channelRef as slackChannel, userRef as slackUser } from '../../../src/adapters/slack/ids.js';
import { memoryAccessFor } from '../../../src/commands/runs/memory-access-for.js';
import { SHARED_MEMORY_SCOPE } from '../../../src/core/memory/memory-fact.js';
import { conversationPlace, isConversationScope, isSharedScope, memoryScopeOf } from '../../../src/core/scopes/conversation-scope.js';

const scopeOf = (channel: string, user: string) => memoryAccessFor({ admins: [] }, { channel, user }).scope;

describe('the memory scope of a conversation', () => {
  it('is the channel on Slack, whoever speaks and in whichever thread; two channels never share one', () => {
    expect(scopeOf(slackChannel('T1', 'C_PRIVATE'), slackUser('U1'))).toBe('channel:slack:T1/C_PRIVATE');
    expect(scopeOf(slackChannel('T1', 'C_PRIVATE'), slackUser('U2'))).toBe('channel:slack:T1/C_PRIVATE');
    expect(scopeOf(slackChannel('T1', 'C_GENERAL'), slackUser('U1'))).not.toBe(scopeOf(slackChannel('T1', 'C_PRIVATE'), slackUser('U1')));
    // The same channel id in another workspace is another channel.
    expect(scopeOf(slackChannel('T2', 'C_PRIVATE'), slackUser('U1'))).toBe('channel:slack:T2/C_PRIVATE');
  });

  it("is the person's own on a Slack DM (a `D…` channel)", () => {
    expect(scopeOf(slackChannel('T1', 'D024BE91L'), slackUser('U1'))).toBe('user:slack:U1');
    expect(scopeOf(slackChannel('T1', 'D024BE91L'), slackUser('U2'))).toBe('user:slack:U2');
    expect(memoryScopeOf(conversationPlace({ channel: slackChannel('T1', 'C1'), user: slackUser('U1'), direct: true }))).toBe('user:slack:U1');
  });

  it('is the text channel on Discord, for its threads too (the adapter names a thread by its parent channel)', () => {
    expect(scopeOf(discordChannel('111', '222'), discordUser('333'))).toBe('channel:discord:111/222');
    // A thread's events carry the parent channel; the thread ref itself is not a channel.
    expect(discordThread('111', '222', '444').startsWith(discordChannel('111', '222'))).toBe(true);
    expect(scopeOf(discordChannel('111', '999'), discordUser('333'))).not.toBe('channel:discord:111/222');
  });

  it("is each playground channel's own, and the local user's for `tsuka ask`", () => {
    expect(scopeOf(playgroundChannel('general'), PLAYGROUND_USER)).toBe('channel:playground:general');
    expect(scopeOf(playgroundChannel('incident'), PLAYGROUND_USER)).toBe('channel:playground:incident');
    expect(memoryScopeOf({ kind: 'local', osUser: 'alice' })).toBe('local:alice');
    expect(memoryScopeOf({ kind: 'local' })).toBe('local:local');
  });

  it('tells conversation scopes from shared ones (and from the workspace scopes of before)', () => {
    for (const scope of ['channel:slack:T1/C1', 'user:slack:U1', 'local:alice']) {
      expect(isConversationScope(scope), scope).toBe(true);
      expect(isSharedScope(scope), scope).toBe(false);
    }
    for (const scope of [SHARED_MEMORY_SCOPE, 'global', '/srv/project-a', 'channel:']) expect(isSharedScope(scope), scope).toBe(true);
  });
});
