import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ChatSurface, ReplyStream, TaskUpdate } from '../../../src/commands/chat-surface.js';
import { createMaskingSurface } from '../../../src/commands/masking-surface.js';
import { createMemorySurface } from '../../support/memory-surface.js';

/** A surface whose stream records every call it gets, in order. */
function recordingSurface(): { surface: ChatSurface; calls: string[] } {
  const calls: string[] = [];
  const stream: ReplyStream = {
    append: (text) => void calls.push(`append ${text}`),
    status: (text) => void calls.push(`status ${text}`),
    stop: async ({ text }) => void calls.push(`stop ${text}`),
    task: (update: TaskUpdate) => void calls.push(`task ${update.title}`),
  };
  return { surface: { ...createMemorySurface(), startStream: () => stream }, calls };
}

afterEach(() => vi.useRealTimers());

describe('a masked reply stream', () => {
  it('masks each text once it is sent, and sends the newest text at most every interval, the first at once', () => {
    vi.useFakeTimers();
    const { surface, calls } = recordingSurface();
    let masked = 0;
    const mask = (text: string) => {
      masked += 1;
      return text.replaceAll('hunter2', '[secret]');
    };
    const stream = createMaskingSurface(surface, mask, { appendIntervalMs: 100 }).startStream!({ thread: 't' });
    let text = 'pass';
    stream.append(text);
    // A token at a time, as the renderer gives them: 50 texts within the interval.
    for (let token = 0; token < 50; token += 1) stream.append((text += token === 0 ? 'word hunter2 ' : 'x'));
    expect(calls).toEqual(['append pass']);
    vi.advanceTimersByTime(100);
    expect(calls).toEqual(['append pass', `append ${text.replace('hunter2', '[secret]')}`]);
    expect(masked).toBe(2);
  });

  it('sends the waiting text before a task and drops it for the final text, so nothing shows out of order or late', async () => {
    vi.useFakeTimers();
    const { surface, calls } = recordingSurface();
    const stream = createMaskingSurface(surface, (text) => text, { appendIntervalMs: 100 }).startStream!({ thread: 't' });
    stream.append('a');
    stream.append('ab');
    stream.status('thinking');
    stream.task!({ id: 'task-1', title: 'read_file', status: 'pending' });
    stream.append('ab c');
    await stream.stop({ text: 'ab cd' });
    vi.advanceTimersByTime(1000);
    expect(calls).toEqual(['append a', 'status thinking', 'append ab', 'task read_file', 'stop ab cd']);
  });
});
