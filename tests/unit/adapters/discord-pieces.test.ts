/** The adapter's pure pieces: opaque ids, button ids, command text, avatars, and edit pacing. */
import { describe, expect, it } from 'vitest';
import { commandText } from '../../../src/adapters/discord/application-commands.js';
import { componentsFor, customIdFor, parseCustomId } from '../../../src/adapters/discord/cards.js';
import { decodeMessage, decodeThread, decodeUser, messageRef, threadFromMessage, threadRef, userRef } from '../../../src/adapters/discord/ids.js';
import { avatarEmoji } from '../../../src/adapters/discord/markdown.js';
import { createDiscordEditPacer } from '../../../src/adapters/discord/rate-limits.js';

describe('Discord adapter pieces', () => {
  it('round-trips ids, and a channel message names the thread started from it', () => {
    const address = { guild: '1', parent: '2', channel: '2', message: '3', webhook: '4' };
    expect(decodeMessage(messageRef(address))).toEqual(address);
    expect(decodeThread(threadFromMessage(address))).toEqual({ guild: '1', parent: '2', thread: '3' });
    expect(decodeThread(threadRef('1', '2', '9'))).toEqual({ guild: '1', parent: '2', thread: '9' });
    expect(decodeUser(userRef('81234'))).toBe('81234');
    expect(() => decodeThread('slack:T/C/1.2')).toThrow(/not a Discord id/);
  });

  it('packs buttons as actionId:value within 100 characters, with Discord styles, and parses them back', () => {
    const rows = componentsFor([
      { actionId: 'tsuka_approve', label: 'Approve', style: 'success', value: 'abc123' },
      { actionId: 'tsuka_approve_run', label: 'Approve for this run', style: 'primary', value: 'abc123' },
      { actionId: 'tsuka_deny', label: 'Deny', style: 'danger', value: 'abc123' },
      { actionId: 'tsuka_stop', label: 'Stop', style: 'secondary', value: 'run:1' },
    ]);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.components.map((button) => ('style' in button ? button.style : 0))).toEqual([3, 1, 4, 2]);
    expect(parseCustomId('tsuka_stop:run:1')).toEqual({ actionId: 'tsuka_stop', value: 'run:1' });
    expect(() => customIdFor({ actionId: 'a', value: 'x'.repeat(99) })).toThrow(/100/);
    expect(componentsFor([])).toEqual([]);
  });

  it('turns typed options into the text the command layer parses', () => {
    const options = (values: Record<string, string | number>) => (name: string) => values[name];
    expect(commandText('call', options({ participants: 'spock worf', topic: 'Cache in "Redis"?', rounds: 3 }))).toBe(`spock worf "Cache in 'Redis'?" rounds=3`);
    expect(commandText('team', options({ team: 'review', task: 'check the api' }))).toBe('review check the api');
    expect(commandText('goal', options({ objective: 'ship it' }))).toBe('ship it');
    expect(commandText('tsuka', options({}))).toBe('help');
  });

  it('maps avatars to emoji for names, leaving URLs out', () => {
    expect(avatarEmoji(':wrench:')).toBe('🔧');
    expect(avatarEmoji('🛡️')).toBe('🛡️');
    expect(avatarEmoji('https://example.test/a.png')).toBeUndefined();
    expect(avatarEmoji(':no_such_code:')).toBeUndefined();
  });

  it('spaces edits per channel and lets a newer waiting edit of a message replace the older one', async () => {
    const pacer = createDiscordEditPacer({ editSpacingMsPerChannel: 30 });
    const sent: string[] = [];
    const edit = (text: string) => async () => {
      sent.push(text);
    };
    const first = pacer.edit('c1', 'm1', edit('one'));
    const second = pacer.edit('c1', 'm1', edit('two'));
    const third = pacer.edit('c1', 'm1', edit('three'));
    const other = pacer.edit('c2', 'm9', edit('elsewhere'));
    await Promise.all([first, second, third, other]);
    // 'one' runs at once when the channel's bucket has room (on a loaded machine the scheduler may
    // not have started it before 'two' arrives, and then 'two' replaces it); a waiting edit is always
    // replaced by the newer one, the newest always lands, and another channel is not held up.
    const inChannel = sent.filter((text) => text !== 'elsewhere');
    expect(inChannel.at(-1)).toBe('three');
    expect(inChannel.length).toBeLessThanOrEqual(2);
    expect(sent).toContain('elsewhere');
    pacer.stop();
    await expect(pacer.edit('c1', 'm1', edit('late'))).rejects.toThrow(/stopped/);
  });
});
