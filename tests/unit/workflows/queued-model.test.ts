import { describe, expect, it } from 'vitest';
import { AbortedError } from '../../../src/core/errors.js';
import { createQueuedModel, defaultMaxConcurrent, isQueuedModel } from '../../../src/core/model/queued-model.js';
import { createScriptedModel, say } from '../../../src/core/model/scripted-model.js';
import type { LanguageModel } from '../../../src/core/model/language-model.js';

async function drain(model: LanguageModel, signal: AbortSignal): Promise<string> {
  let text = '';
  for await (const part of model.stream({ messages: [{ role: 'user', content: 'hi' }], signal })) if (part.type === 'text-delta') text += part.text;
  return text;
}

describe('createQueuedModel', () => {
  it('runs one generation at a time, tells each waiting request its place, and lets a waiting request give up', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let firstStarted: () => void = () => undefined;
    const started = new Promise<void>((resolve) => {
      firstStarted = resolve;
    });
    const inner = createScriptedModel([
      async () => {
        firstStarted();
        await gate;
        return say('first');
      },
      say('second'),
    ]);
    const changes: number[] = [];
    const queued = createQueuedModel(inner, { maxConcurrent: 1, onQueueChange: (waiting) => changes.push(waiting) });
    expect(isQueuedModel(queued)).toBe(true);
    expect(isQueuedModel(inner)).toBe(false);
    const [a, b, c] = [new AbortController(), new AbortController(), new AbortController()];
    const first = drain(queued, a.signal);
    await started;
    const second = drain(queued, b.signal);
    const third = drain(queued, c.signal);
    expect(queued.position(a.signal)).toBeUndefined();
    expect(queued.position(b.signal)).toBe(1);
    expect(queued.position(c.signal)).toBe(2);
    c.abort();
    await expect(third).rejects.toBeInstanceOf(AbortedError);
    expect(queued.position(c.signal)).toBeUndefined();
    expect(inner.requests).toHaveLength(1);
    release();
    expect(await first).toBe('first');
    expect(await second).toBe('second');
    expect(inner.requests).toHaveLength(2);
    expect(queued.waiting()).toBe(0);
    expect(Math.max(...changes)).toBe(2);
    expect(changes.at(-1)).toBe(0);
  });
});

describe('defaultMaxConcurrent', () => {
  it('is one generation at a time for local servers unless configured', () => {
    expect(defaultMaxConcurrent('LOCAL')).toBe(1);
    expect(defaultMaxConcurrent('CLOUD')).toBeGreaterThan(1);
    expect(defaultMaxConcurrent('LOCAL', 3)).toBe(3);
    expect(defaultMaxConcurrent('LOCAL', 0)).toBe(1);
  });
});
