/** `/tsuka pin`, `unpin` and `forget` are written to the audit log: who changed which fact, from which channel. */
import { afterEach, describe, expect, it } from 'vitest';
import { startCommandHarness } from '../../support/command-harness.js';

type Harness = Awaited<ReturnType<typeof startCommandHarness>>;
let harness: Harness;
afterEach(async () => {
  await harness?.stop();
});

describe('memory changes in the audit log', () => {
  it('records pin, unpin and forget with the actor and the channel; an unknown fact records nothing', async () => {
    harness = await startCommandHarness();
    const { fact } = await harness.engine.memory.save({
      content: 'Deploys go out on Tuesdays.',
      scope: 'channel:playground:general',
      author: 'geordi',
      savedBy: 'playground:alice',
    });
    expect(await harness.slash('tsuka', `pin ${fact.id}`)).toEqual([`Pinned ${fact.id}.`]);
    expect(await harness.slash('tsuka', `unpin ${fact.id}`)).toEqual([`Unpinned ${fact.id}.`]);
    expect(await harness.slash('tsuka', `forget ${fact.id}`)).toEqual([`Forgot ${fact.id}.`]);
    expect(await harness.slash('tsuka', 'forget no-such-fact')).toEqual(["No fact with id no-such-fact in this channel's memory or the shared memory."]);
    const where = { platform: 'playground', channelId: 'playground:general' };
    expect(await harness.engine.audit.list()).toEqual([
      expect.objectContaining({ type: 'memory-pin', actor: 'playground:alice', where, factId: fact.id, scope: 'channel:playground:general' }),
      expect.objectContaining({ type: 'memory-unpin', actor: 'playground:alice', where, factId: fact.id }),
      expect.objectContaining({ type: 'memory-forget', actor: 'playground:alice', where, factId: fact.id }),
    ]);
  });
});
