/** Issue 35: a message that addresses a person and no character is side talk, whoever wrote it. */
import { describe, expect, it } from 'vitest';
import { addressesPerson, shouldAnswer } from '../../../src/commands/turns/thread-etiquette.js';

describe('side talk', () => {
  it('a leading mention of a person, in every surface’s form, addresses that person; a mention further on does not', () => {
    for (const text of ['<@U2> did you see the deploy?', ' <@U2|ana> lunch?', '<@!8123> ping', '<@&42> team, look', '<@playground:bob> hi']) {
      expect(addressesPerson(text)).toBe(true);
    }
    for (const text of ['what did <@U2> change?', '@bob hi', '<#C1> is noisy', 'geordi ask <@U2>']) expect(addressesPerson(text)).toBe(false);
  });

  it('the starter’s message to a colleague is side talk, under `everyone` too; naming a character is answered', () => {
    const base = { starter: 'slack:U1', user: 'slack:U1', addressed: false, toPerson: true };
    expect(shouldAnswer({ ...base, rule: 'starter' })).toBe(false);
    expect(shouldAnswer({ ...base, rule: 'everyone' })).toBe(false);
    expect(shouldAnswer({ ...base, rule: 'starter', addressed: true })).toBe(true);
    expect(shouldAnswer({ ...base, rule: 'starter', toPerson: false })).toBe(true);
  });
});
