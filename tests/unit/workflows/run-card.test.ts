import { afterEach, describe, expect, it, vi } from 'vitest';
import type { EditOptions } from '../../../src/commands/chat-surface.js';
import { createRunCard } from '../../../src/commands/workflows/run-card.js';
import { ordinal } from '../../../src/commands/runs/queue-note.js';
import type { QueueEstimate } from '../../../src/core/model/language-model.js';
import { STOP_ACTION } from '../../../src/commands/action-ids.js';
import { createMemorySurface } from '../../support/memory-surface.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('run card', () => {
  it('shows the activity, the queue place and a Stop button, then a final state without buttons', async () => {
    const surface = createMemorySurface();
    let position: number | undefined = 2;
    const card = createRunCard({
      surface,
      thread: 't1',
      runId: 'run-1',
      title: 'Team X',
      intervalMs: 10,
      queue: () => (position === undefined ? undefined : { position }),
    });
    await card.start();
    const message = surface.messages[0]!;
    expect(message.buttons).toEqual([{ actionId: STOP_ACTION, label: 'Stop', style: 'danger', value: 'run-1' }]);
    expect(message.text).toContain('waiting for the model (2nd in queue)');
    position = undefined;
    card.update('round 1/3 · Geordi is working');
    await surface.waitFor(() => message.text.includes('Geordi is working'));
    expect(message.text).not.toContain('in queue');
    expect(message.buttons).toHaveLength(1);
    await card.finish('✅ finished');
    expect(message.text).toMatch(/^🛰 \*\*Team X\*\* · ✅ finished · \d+ s$/);
    expect(message.buttons).toEqual([]);
  });

  it('shows the expected wait with the place, and is edited when the place changes, not when only the estimate does', async () => {
    vi.useFakeTimers();
    const surface = createMemorySurface();
    let estimate: QueueEstimate | undefined = { position: 2, seconds: 40 };
    const card = createRunCard({ surface, thread: 't1', runId: 'run-1', title: 'Nightly audit', intervalMs: 100, queue: () => estimate });
    await card.start();
    const message = surface.messages[0]!;
    expect(message.text).toContain('⏳ waiting for the model (2nd in queue · ~40 s)');
    estimate = { position: 2, seconds: 35 };
    await vi.advanceTimersByTimeAsync(1_000);
    expect(message.edits).toBe(0);
    estimate = { position: 1, seconds: 20 };
    await vi.advanceTimersByTimeAsync(200);
    expect(message.edits).toBe(1);
    expect(message.text).toContain('(1st in queue · ~20 s)');
    await card.finish('done');
  });

  it('coalesces bursts of updates into few edits', async () => {
    const surface = createMemorySurface();
    const card = createRunCard({ surface, thread: 't1', runId: 'run-1', title: 'T', intervalMs: 60_000 });
    await card.start();
    for (let step = 0; step < 50; step++) card.update(`step ${step}`);
    await card.finish('done');
    expect(surface.messages[0]!.edits).toBe(1);
  });

  it('shows an activity change that came while an edit was in flight, without waiting for the slow refresh', async () => {
    vi.useFakeTimers();
    const surface = createMemorySurface();
    let release: () => void = () => undefined;
    const firstEditDone = new Promise<void>((resolve) => {
      release = resolve;
    });
    const sent: string[] = [];
    const slowFirstEdit = {
      ...surface,
      async edit(edit: EditOptions) {
        sent.push(edit.text);
        if (sent.length === 1) await firstEditDone;
        return surface.edit(edit);
      },
    };
    const card = createRunCard({ surface: slowFirstEdit, thread: 't1', runId: 'run-1', title: 'T', intervalMs: 100 });
    await card.start();
    card.update('step 1');
    await vi.advanceTimersByTimeAsync(100);
    expect(sent).toHaveLength(1);
    // The next change's timer fires while the first edit still waits on the platform.
    card.update('step 2');
    await vi.advanceTimersByTimeAsync(100);
    expect(sent).toHaveLength(1);
    release();
    // Well under the 15 s refresh of an unchanged card.
    await vi.advanceTimersByTimeAsync(1_000);
    expect(sent).toHaveLength(2);
    expect(surface.messages[0]!.text).toContain('Now: step 2');
    await card.finish('done');
  });

  it('writes ordinals', () => {
    expect([1, 2, 3, 4, 11, 12, 13, 21, 22].map(ordinal)).toEqual(['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '22nd']);
  });
});
