/**
 * The queue estimate on a run card (issue 25): "2nd in queue · ~40 s" from the speed `tsuka
 * benchmark` measured, else the speed this process observed, else no estimate ("2nd in queue");
 * the note a waiting run shows changes only when its place does.
 */
import { describe, expect, it } from 'vitest';
import { createLocalSlots } from '../../../src/core/coordination/local-slots.js';
import type { LanguageModel, ModelStreamPart } from '../../../src/core/model/language-model.js';
import { createScriptedModel, say } from '../../../src/core/model/scripted-model.js';
import { createServerPoolModel } from '../../../src/core/model/server-pool-model.js';
import { createGenerationSpeed, DEFAULT_EXPECTED_COMPLETION_TOKENS, estimateWaitSeconds } from '../../../src/core/model/generation-speed.js';
import { formatWait, queuePlace, waitingNote, watchQueue } from '../../../src/commands/runs/queue-note.js';

function gate(): { promise: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

async function drain(model: LanguageModel, signal = new AbortController().signal): Promise<void> {
  for await (const _part of model.stream({ messages: [{ role: 'user', content: 'hi' }], signal })) void _part;
}

/** A one-slot queue whose first call holds the slot until `hold` opens. */
function busyQueue(options: { measuredSpeed?: number; now?: () => number; steps?: (ModelStreamPart[] | (() => Promise<ModelStreamPart[]>))[] } = {}) {
  const hold = gate();
  let started: () => void = () => undefined;
  const holding = new Promise<void>((resolve) => (started = resolve));
  const inner = createScriptedModel([
    ...(options.steps ?? []),
    async () => {
      started();
      await hold.promise;
      return say('done');
    },
    say('a'),
    say('b'),
    say('c'),
  ]);
  const model = createServerPoolModel({
    servers: ['gpu'],
    modelFor: () => inner,
    slots: createLocalSlots(),
    capacity: 1,
    ...(options.measuredSpeed === undefined ? {} : { measuredSpeed: () => options.measuredSpeed }),
    ...(options.now ? { now: options.now } : {}),
  });
  return { model, hold, holding };
}

describe('queue estimate', () => {
  it('says the place and the wait from the benchmark speed: the place × a generation’s tokens ÷ tokens per second', async () => {
    const { model, hold, holding } = busyQueue({ measuredSpeed: 30 });
    const running = drain(model);
    await holding;
    const [first, second] = [new AbortController(), new AbortController()];
    const calls = [drain(model, first.signal), drain(model, second.signal)];
    // Nothing observed yet: a generation is taken to be 300 tokens; 2 × 300 ÷ 30 = 20 s.
    expect(model.estimate(second.signal)).toEqual({ position: 2, seconds: (2 * DEFAULT_EXPECTED_COMPLETION_TOKENS) / 30 });
    expect(waitingNote(model.estimate(second.signal)!)).toBe('⏳ waiting for the model (2nd in queue · ~20 s)');
    expect(model.estimate(new AbortController().signal)).toBeUndefined();
    hold.open();
    await Promise.all([running, ...calls]);
  });

  it('without a benchmark, uses the speed and length of the generations this process saw; with neither, gives the place alone', async () => {
    let now = 0;
    // One finished generation before: 200 tokens in 10 s of streaming.
    const timed = async (): Promise<ModelStreamPart[]> => [
      { type: 'text-delta', text: 'x' },
      { type: 'usage', usage: { promptTokens: 10, completionTokens: 200 } },
      { type: 'finish', reason: 'stop' },
    ];
    const unseen = busyQueue();
    const runningUnseen = drain(unseen.model);
    await unseen.holding;
    const waiting = new AbortController();
    const call = drain(unseen.model, waiting.signal);
    expect(unseen.model.estimate(waiting.signal)).toEqual({ position: 1 });
    expect(waitingNote(unseen.model.estimate(waiting.signal)!)).toBe('⏳ waiting for the model (1st in queue)');
    unseen.hold.open();
    await Promise.all([runningUnseen, call]);

    const seen = busyQueue({ now: () => now, steps: [timed] });
    const generating = seen.model.stream({ messages: [{ role: 'user', content: 'hi' }] })[Symbol.asyncIterator]();
    await generating.next();
    now = 10_000;
    while (!(await generating.next()).done);
    const runningSeen = drain(seen.model);
    await seen.holding;
    const next = new AbortController();
    const later = drain(seen.model, next.signal);
    // 1 × 200 tokens ÷ 20 tokens/s.
    expect(seen.model.estimate(next.signal)).toEqual({ position: 1, seconds: 10 });
    seen.hold.open();
    await Promise.all([runningSeen, later]);
  });

  it('keeps a waiting run’s note while its place stays, and tags its requests with its class', async () => {
    const { model, hold, holding } = busyQueue({ measuredSpeed: 10 });
    const running = drain(model);
    await holding;
    const audit = new AbortController();
    const readAudit = watchQueue(model, audit.signal, { priority: 'schedule', requester: 'slack:U1', character: '/goal' });
    const auditCall = drain(model, audit.signal);
    const first = readAudit();
    expect(first && queuePlace(first)).toBe('1st in queue · ~30 s');
    expect(readAudit()).toBe(first);
    // A person comes: they go first, and the schedule's note changes with its place.
    const ana = new AbortController();
    watchQueue(model, ana.signal, { priority: 'person', requester: 'slack:U2', character: 'Geordi' });
    const anaCall = drain(model, ana.signal);
    expect(readAudit()).toEqual({ position: 2, seconds: 60 });
    expect((await model.queue()).map((request) => [request.position, request.ticket.priority, request.ticket.character])).toEqual([
      [1, 'person', 'Geordi'],
      [2, 'schedule', '/goal'],
    ]);
    hold.open();
    await Promise.all([running, auditCall, anaCall]);
    expect(readAudit()).toBeUndefined();
  });

  it('writes waits as an estimate is meant: whole seconds, minutes past a minute and a half', () => {
    expect([formatWait(0.2), formatWait(40), formatWait(89), formatWait(90), formatWait(600)]).toEqual(['~1 s', '~40 s', '~89 s', '~2 min', '~10 min']);
    expect(queuePlace({ position: 3 })).toBe('3rd in queue');
    expect(estimateWaitSeconds({ position: 3, expectedTokens: 100, tokensPerSecond: 50, slots: 2 })).toBe(3);
    expect(estimateWaitSeconds({ position: 1, expectedTokens: 100, slots: 1 })).toBeUndefined();
  });

  it('averages what it observes, and ignores generations too short to time', () => {
    const speed = createGenerationSpeed();
    expect([speed.tokensPerSecond(), speed.tokensPerGeneration()]).toEqual([undefined, DEFAULT_EXPECTED_COMPLETION_TOKENS]);
    speed.observe({ completionTokens: 40, seconds: 0.01 });
    expect([speed.tokensPerSecond(), speed.tokensPerGeneration()]).toEqual([undefined, 40]);
    speed.observe({ completionTokens: 40, seconds: 2, serverTokensPerSecond: 25 });
    expect(speed.tokensPerSecond()).toBe(25);
    speed.observe({ completionTokens: 40, seconds: 4 });
    expect(speed.tokensPerSecond()).toBeCloseTo(25 + 0.2 * (10 - 25));
  });
});
