/**
 * The notice an interrupted run's thread gets after a restart (issue 40): each kind of run in its own
 * words — a chat turn's notice says nothing of /goal steps or /team rounds, and a kind that cannot be
 * resumed offers no Resume at all.
 */
import { describe, expect, it } from 'vitest';
import { interruptedNotice, REPLICA_STOPPED_TEXT, RESTARTED_TEXT } from '../../../src/app/replica-watch.js';

describe('interruptedNotice', () => {
  it('tells an interrupted chat turn that Resume answers the message again, without /goal or /team words', () => {
    const text = interruptedNotice('ask', 'restart');
    expect(text.startsWith(RESTARTED_TEXT)).toBe(true);
    expect(text).toMatch(/Resume\*\* answers the message again/);
    expect(text).not.toMatch(/\/goal|\/team|step|round/);
  });

  it('tells a /goal it continues from its first unfinished step, and a /team after its last round', () => {
    expect(interruptedNotice('goal', 'restart')).toMatch(/\/goal from its first unfinished step/);
    expect(interruptedNotice('goal', 'restart')).not.toMatch(/\/team/);
    expect(interruptedNotice('team', 'replica')).toMatch(/^⚠️ The TSUKA replica running this stopped[\s\S]*\/team after its last completed round/);
    expect(interruptedNotice('team', 'replica')).not.toMatch(/\/goal/);
  });

  it('offers no Resume words for a run kind that cannot be resumed', () => {
    expect(interruptedNotice('call', 'restart')).toBe(RESTARTED_TEXT);
    expect(interruptedNotice('call', 'replica')).toBe(REPLICA_STOPPED_TEXT);
  });
});
