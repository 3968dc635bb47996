/**
 * `/tsuka queue` (issue 25): who waits for the model, in the order they will be served — a
 * schedule's turn behind a person who came later — and, asked from another channel, nothing of a
 * private channel's request but its requester and character: not its text, not the channel's name.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ChannelInfo } from '../../../src/commands/chat-surface.js';
import type { ModelStreamPart } from '../../../src/core/model/language-model.js';
import { say } from '../../../src/core/model/scripted-model.js';
import { TSUKA_HELP } from '../../../src/commands/tsuka/tsuka-command.js';
import { startCommandHarness } from '../../support/command-harness.js';

let harness: Awaited<ReturnType<typeof startCommandHarness>>;
afterEach(async () => {
  await harness?.stop();
});

const CHANNELS: Record<string, ChannelInfo> = {
  'playground:ops': { kind: 'public', name: 'ops', members: 9 },
  'playground:general': { kind: 'public', name: 'general', members: 9 },
  'playground:secret': { kind: 'private', name: 'secret-incident', members: 3 },
};

describe('/tsuka queue', () => {
  it('lists a person before a schedule that waited first, and hides a private channel’s name and every request’s text', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started: () => void = () => undefined;
    const holding = new Promise<void>((resolve) => (started = resolve));
    const holder = async (): Promise<ModelStreamPart[]> => {
      started();
      await held;
      return say('held answer');
    };
    harness = await startCommandHarness({
      steps: [holder, say('answer for carol'), say('answer for the schedule')],
      queue: 1,
      channelInfo: (channel) => CHANNELS[channel] ?? { kind: 'private', members: 2 },
    });
    await harness.mention('geordi hold the GPU', { message: 'a', channel: 'playground:ops', user: 'playground:alice' });
    await holding;
    // A scheduled mention (its owner bob) waits first; carol, a person in a private channel, comes after.
    await harness.mention('data summarize the nightly audit', { message: 'b', channel: 'playground:general', user: 'playground:bob', schedule: 'sch-1' });
    await harness.surface.waitFor(() => harness.surface.inThread('thread:b').some((message) => message.text.includes('(1st in queue)')));
    await harness.mention('spock the password rotation plan for prod', { message: 'c', channel: 'playground:secret', user: 'playground:carol' });
    await harness.surface.waitFor(() => harness.surface.inThread('thread:b').some((message) => message.text.includes('(2nd in queue)')));

    const fromGeneral = (await harness.slash('tsuka', 'queue', { channel: 'playground:general', user: 'playground:dave' })).join('\n');
    expect(fromGeneral).toContain('2 waiting');
    expect(fromGeneral).toContain('1st in queue · 🙋 person · <@playground:carol> · Spock · a private channel');
    expect(fromGeneral).toContain('2nd in queue · ⏰ schedule · <@playground:bob> · Data · #general');
    expect(fromGeneral).not.toMatch(/password|rotation|secret-incident|nightly audit/);

    // Carol sees her own channel named; someone in another public channel sees #general named.
    expect((await harness.slash('tsuka', 'queue', { channel: 'playground:secret', user: 'playground:carol' })).join('\n')).toContain(
      '<@playground:carol> · Spock · #secret-incident',
    );
    const fromOps = (await harness.slash('tsuka', 'queue', { channel: 'playground:ops', user: 'playground:erin' })).join('\n');
    expect(fromOps).toContain('Spock · a private channel');
    expect(fromOps).toContain('Data · #general');

    release();
    await harness.surface.waitFor(() => harness.surface.inThread('thread:b').some((message) => message.text.includes('answer for the schedule')));
    // Carol's turn was given the model before the schedule's.
    expect(harness.model.requests.map((request) => request.messages.at(-1)?.content)).toEqual([
      expect.stringContaining('hold the GPU'),
      expect.stringContaining('password rotation'),
      expect.stringContaining('nightly audit'),
    ]);
    expect((await harness.slash('tsuka', 'queue')).join('\n')).toBe('Nobody waits for the model.');
  });

  it('is in the help of /tsuka', () => {
    expect(TSUKA_HELP).toContain('• `queue` — who waits for the model');
  });
});
