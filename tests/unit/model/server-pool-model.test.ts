/**
 * The generation queue over several servers, with in-process scripted models: what is retried on
 * another server and what is not, waiting calls dispatched again when health changes, slots given
 * back on every way out.
 */
import { describe, expect, it } from 'vitest';
import { createLocalSlots } from '../../../src/core/coordination/local-slots.js';
import { AbortedError, ModelError } from '../../../src/core/errors.js';
import type { LanguageModel } from '../../../src/core/model/language-model.js';
import { createScriptedModel, say } from '../../../src/core/model/scripted-model.js';
import { createServerHealth } from '../../../src/core/model/server-health.js';
import { createServerPoolModel, isServerFailure } from '../../../src/core/model/server-pool-model.js';

function gate(): { promise: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

async function text(model: LanguageModel, signal = new AbortController().signal): Promise<string> {
  let out = '';
  for await (const part of model.stream({ messages: [{ role: 'user', content: 'hi' }], signal })) if (part.type === 'text-delta') out += part.text;
  return out;
}

const unreachable = () => new ModelError('The model server at x is not reachable.', { retryable: true, code: 'model_unreachable' });

function pool(models: Record<string, LanguageModel>, options: { down?: string[]; answers?: (server: string) => boolean } = {}) {
  const servers = Object.keys(models);
  const slots = createLocalSlots();
  const health = createServerHealth({ servers, down: options.down, probe: async (server) => options.answers?.(server) ?? true });
  const model = createServerPoolModel({ servers, modelFor: (server) => models[server]!, slots, capacity: 1, health });
  return { model, slots, health };
}

describe('createServerPoolModel', () => {
  it('dispatches a waiting call again when a server comes back, instead of waiting for the busy one', async () => {
    const hold = gate();
    let started: () => void = () => undefined;
    const aStarted = new Promise<void>((resolve) => (started = resolve));
    const a = createScriptedModel([
      async () => {
        started();
        await hold.promise;
        return say('from A');
      },
    ]);
    const b = createScriptedModel([say('from B')]);
    const { model, health, slots } = pool({ a, b }, { down: ['b'] });
    const first = text(model);
    await aStarted;
    const signal = new AbortController().signal;
    const second = text(model, signal);
    expect(model.position(signal)).toBe(1);
    await health.probeDown();
    expect(await second).toBe('from B');
    hold.open();
    expect(await first).toBe('from A');
    expect([await slots.inUse('a'), await slots.inUse('b')]).toEqual([0, 0]);
  });

  it('leaves a failure after the first token to the caller: no retry, the server stays up', async () => {
    // Streams a token, then the connection drops.
    const failing: LanguageModel = {
      providerId: 'scripted',
      modelId: 'm',
      async *stream() {
        yield { type: 'text-delta', text: 'half' };
        throw unreachable();
      },
    };
    const b = createScriptedModel([]);
    const { model, health } = pool({ a: failing, b });
    await expect(text(model)).rejects.toThrow(/not reachable/);
    expect(health.up()).toEqual(['a', 'b']);
    expect(b.requests).toHaveLength(0);
  });

  it('does not retry what another server would refuse too (a 400), and marks nothing down', async () => {
    const a = createScriptedModel([
      () => {
        throw new ModelError('rejected the request (400)', { status: 400 });
      },
    ]);
    const b = createScriptedModel([]);
    const { model, health } = pool({ a, b });
    await expect(text(model)).rejects.toThrow(/400/);
    expect(health.anyDown()).toBe(false);
    expect(isServerFailure(new ModelError('x', { status: 400 }))).toBe(false);
    expect(isServerFailure(unreachable())).toBe(true);
  });

  it('fails a waiting call with model_unreachable when the last server up goes down', async () => {
    const hold = gate();
    let started: () => void = () => undefined;
    const aStarted = new Promise<void>((resolve) => (started = resolve));
    const a = createScriptedModel([
      async () => {
        started();
        await hold.promise;
        return say('done');
      },
    ]);
    const { model, health } = pool({ a, b: createScriptedModel([]) }, { down: ['b'] });
    const first = text(model);
    await aStarted;
    const waiting = text(model);
    health.markDown('a', new Error('gone'));
    await expect(waiting).rejects.toMatchObject({ code: 'model_unreachable' });
    await expect(text(model)).rejects.toMatchObject({ code: 'model_unreachable' });
    hold.open();
    expect(await first).toBe('done');
  });

  it('gives the slot back when a waiting call is stopped, and when the caller stops reading', async () => {
    const hold = gate();
    const a: LanguageModel = {
      providerId: 'scripted',
      modelId: 'm',
      async *stream() {
        yield { type: 'text-delta', text: 'one' };
        await hold.promise;
        yield { type: 'text-delta', text: 'two' };
      },
    };
    const { model, slots } = pool({ a });
    const reading = model.stream({ messages: [] })[Symbol.asyncIterator]();
    expect(await reading.next()).toMatchObject({ value: { text: 'one' } });
    const stopped = new AbortController();
    const waiting = text(model, stopped.signal);
    expect(model.waiting()).toBe(1);
    stopped.abort();
    await expect(waiting).rejects.toBeInstanceOf(AbortedError);
    expect(model.waiting()).toBe(0);
    await reading.return?.();
    expect(await slots.inUse('a')).toBe(0);
    hold.open();
  });
});

describe('createServerHealth', () => {
  it('marks a server down once, probes only down servers, and tells listeners of every change', async () => {
    const probed: string[] = [];
    let answers = false;
    const health = createServerHealth({
      servers: ['a', 'b'],
      probe: async (server) => {
        probed.push(server);
        return answers;
      },
    });
    const changes: string[][] = [];
    health.onChange(() => changes.push(health.up()));
    health.markDown('b', new Error('connection refused'));
    health.markDown('b', new Error('again'));
    health.markDown('unknown');
    expect(health.states()).toEqual([{ server: 'a', up: true }, expect.objectContaining({ server: 'b', up: false, reason: 'connection refused' })]);
    await Promise.all([health.probeDown(), health.probeDown()]);
    expect(probed).toEqual(['b']);
    expect(health.isUp('b')).toBe(false);
    answers = true;
    await health.probeDown();
    expect(health.up()).toEqual(['a', 'b']);
    expect(changes).toEqual([['a'], ['a', 'b']]);
  });
});
