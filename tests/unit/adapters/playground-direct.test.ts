/** The playground's stand-in for a direct message: a file for the user alone lands in its own `direct` channel, never in the one the command came from. */
import { describe, expect, it } from 'vitest';
import { createPlaygroundState } from '../../../src/adapters/playground/state.js';
import { createPlaygroundSurface } from '../../../src/adapters/playground/surface.js';
import { PLAYGROUND_USER } from '../../../src/adapters/playground/ids.js';

describe('playground uploadToUser', () => {
  it('puts the file in the direct channel, created on first use', async () => {
    const state = createPlaygroundState();
    const surface = createPlaygroundSurface({ state, editIntervalMs: 10 });
    await surface.uploadToUser!({ user: PLAYGROUND_USER, fileName: 'run-1.md', title: 'Transcript of run-1', content: '# run-1' });
    const snapshot = state.snapshot();
    expect(snapshot.channels.map((channel) => channel.id)).toEqual(['general', 'direct']);
    expect(snapshot.files).toEqual([expect.objectContaining({ channel: 'direct', fileName: 'run-1.md' })]);
  });
});
