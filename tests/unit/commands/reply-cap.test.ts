import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { REPLY_MAX_CHARS } from '../../../src/commands/reply/reply-cap.js';
import { createReplyRenderer } from '../../../src/commands/reply/reply-renderer.js';
import { createMemorySurface } from '../../support/memory-surface.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('reply cap', () => {
  it('a 10.5 MB runaway answer posts at most 40,000 characters in chat and attaches the whole reply', async () => {
    const surface = createMemorySurface({ maxMessageLength: 3900, editIntervalMs: 50 });
    const renderer = createReplyRenderer({ surface, thread: 'slack:T1/C1/1.1' });
    await renderer.start();
    const line = 'The same sentence again, because the model is looping until its token limit.\n';
    const chunk = line.repeat(1000);
    let written = 0;
    while (written < 10.5 * 1024 * 1024) {
      renderer.handle({ type: 'text-delta', text: chunk });
      written += chunk.length;
      await vi.advanceTimersByTimeAsync(5);
    }
    const finishing = renderer.finish();
    await vi.runAllTimersAsync();
    await finishing;

    const shown = surface.messages.map((message) => message.text).join('');
    // Before the cap, every 3,900 characters became a message: ≈ 2,800 messages for this answer.
    expect(surface.messages.length).toBeLessThanOrEqual(Math.ceil(REPLY_MAX_CHARS / 3800) + 1);
    expect(shown.length).toBeLessThan(REPLY_MAX_CHARS + 400);
    expect(surface.uploads).toHaveLength(1);
    expect(surface.uploads[0]!.fileName).toBe('reply.md');
    expect(surface.uploads[0]!.content.length).toBe(written);
    expect(surface.messages.at(-1)!.text).toMatch(/longer than 40,000 characters: [\d,]+ more are not shown here; the whole reply is attached as reply\.md/);
  });

  it('a reply under the cap is posted whole, with no attachment', async () => {
    const surface = createMemorySurface({ maxMessageLength: 3900, editIntervalMs: 50 });
    const renderer = createReplyRenderer({ surface, thread: 't', maxReplyChars: 10_000 });
    await renderer.start();
    renderer.handle({ type: 'text-delta', text: 'word '.repeat(1999) });
    const finishing = renderer.finish('stopped by @ana');
    await vi.runAllTimersAsync();
    await finishing;
    expect(surface.uploads).toHaveLength(0);
    expect(surface.messages.map((message) => message.text).join('')).toContain('stopped by @ana');
  });
});
