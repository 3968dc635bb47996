/** Who reaches a run from where: its own channel, an admin anywhere, nobody else (not even to learn it exists). */
import { describe, expect, it } from 'vitest';
import { noSuchRunInChannel, runAccess, runsOfChannel } from '../../../src/core/scopes/run-access.js';

const privateRun = { id: 'run-p', where: { platform: 'slack', channelId: 'slack:T1/CPRIVATE', threadId: 'slack:T1/CPRIVATE/1.0001' } };
const generalRun = { id: 'run-g', where: { platform: 'slack', channelId: 'slack:T1/CGENERAL' } };

describe('run access', () => {
  it('gives a run to its own channel, whoever asks', () => {
    expect(runAccess(privateRun, { channel: 'slack:T1/CPRIVATE', isAdmin: false })).toBe('channel');
    expect(runAccess(privateRun, { channel: 'slack:T1/CPRIVATE', isAdmin: true })).toBe('channel');
  });

  it("refuses another channel's run to a member, as if it did not exist", () => {
    expect(runAccess(privateRun, { channel: 'slack:T1/CGENERAL', isAdmin: false })).toBe('none');
    expect(runAccess(undefined, { channel: 'slack:T1/CGENERAL', isAdmin: false })).toBe('none');
    // The same words for a run of another channel and a run that never existed.
    expect(noSuchRunInChannel('run-p')).toBe(noSuchRunInChannel('run-p'));
    expect(noSuchRunInChannel('run-p').replace('run-p', 'X')).toBe(noSuchRunInChannel('run-nope').replace('run-nope', 'X'));
  });

  it("lets an admin reach another channel's run, marked as such (shown to the admin alone)", () => {
    expect(runAccess(privateRun, { channel: 'slack:T1/CGENERAL', isAdmin: true })).toBe('admin');
    expect(runAccess(undefined, { channel: 'slack:T1/CGENERAL', isAdmin: true })).toBe('none');
  });

  it('does not mistake a channel of the same raw id on another platform or workspace for this one', () => {
    expect(runAccess(privateRun, { channel: 'slack:T2/CPRIVATE', isAdmin: false })).toBe('none');
    expect(runAccess({ where: { platform: 'cli', channelId: 'terminal' } }, { channel: 'playground:terminal', isAdmin: false })).toBe('none');
  });

  it('lists only the runs of one channel, in the order given', () => {
    expect(runsOfChannel([privateRun, generalRun, { ...generalRun, id: 'run-g2' }], 'slack:T1/CGENERAL').map((run) => run.id)).toEqual(['run-g', 'run-g2']);
  });
});
