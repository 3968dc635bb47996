/** The renderer under slow or failing platform calls: no text lost, no part overwritten, no edit after the last. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createReplyRenderer } from '../../../src/commands/reply/reply-renderer.js';
import type { EditOptions, PostOptions } from '../../../src/commands/chat-surface.js';
import { createMemorySurface } from '../../support/memory-surface.js';

const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const allText = (surface: ReturnType<typeof createMemorySurface>) => surface.messages.map((message) => message.text).join('\n');

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('reply renderer with a slow or failing platform', () => {
  it('keeps text that streams in while a full message is being sealed', async () => {
    const surface = createMemorySurface({ maxMessageLength: 200, editIntervalMs: 10 });
    const edit = surface.edit.bind(surface);
    surface.edit = async (options: EditOptions) => {
      await later(30); // a real edit takes time
      return edit(options);
    };
    const renderer = createReplyRenderer({ surface, thread: 't' });
    await renderer.start();
    const lines = Array.from({ length: 30 }, (_, index) => `Line number ${index} of the reply.`);
    for (const line of lines) {
      renderer.handle({ type: 'text-delta', text: `${line}\n` });
      await vi.advanceTimersByTimeAsync(7);
    }
    const finished = renderer.finish();
    await vi.runAllTimersAsync();
    await finished;
    expect(lines.filter((line) => !allText(surface).includes(line))).toEqual([]);
  });

  it('never overwrites a finished part when posting its continuation fails once', async () => {
    const surface = createMemorySurface({ maxMessageLength: 200, editIntervalMs: 10 });
    const post = surface.post.bind(surface);
    let posts = 0;
    surface.post = async (options: PostOptions) => {
      if (++posts === 2) throw Object.assign(new Error('ratelimited'), { code: 'slack_webapi_rate_limited_error' });
      return post(options);
    };
    const renderer = createReplyRenderer({ surface, thread: 't', onError: () => undefined });
    await renderer.start();
    const lines = Array.from({ length: 12 }, (_, index) => `Line number ${index} of the reply.`);
    for (const line of lines) {
      renderer.handle({ type: 'text-delta', text: `${line}\n` });
      await vi.advanceTimersByTimeAsync(20);
    }
    const finished = renderer.finish();
    await vi.runAllTimersAsync();
    await finished;
    expect(lines.filter((line) => !allText(surface).includes(line))).toEqual([]);
    for (const message of surface.messages) expect(message.text.length).toBeLessThanOrEqual(200);
  });

  it('makes no edit after the final one when finish() comes during an edit', async () => {
    const surface = createMemorySurface({ editIntervalMs: 50 });
    const edit = surface.edit.bind(surface);
    let done = false;
    let editsAfterFinish = 0;
    surface.edit = async (options: EditOptions) => {
      if (done) editsAfterFinish++;
      await later(20);
      return edit(options);
    };
    const renderer = createReplyRenderer({ surface, thread: 't', runningButtons: [{ actionId: 'tsuka_stop', label: 'Stop', style: 'secondary', value: 'r' }] });
    await renderer.start();
    renderer.handle({ type: 'text-delta', text: 'hello' });
    await vi.advanceTimersByTimeAsync(5); // the first edit is now in flight
    const finished = renderer.finish('⏹ Stopped.');
    await vi.advanceTimersByTimeAsync(100);
    await finished;
    done = true;
    await vi.advanceTimersByTimeAsync(500);
    expect(editsAfterFinish).toBe(0);
    expect(surface.messages[0]!.text).toBe('hello\n⏹ Stopped.');
    expect(surface.messages[0]!.buttons).toEqual([]);
  });
});
