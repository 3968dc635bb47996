/**
 * A flaky Slack (issue 17): malformed Socket Mode envelopes, windows of 500s and 429s in the middle
 * of a reply, a budget that runs out, a message re-sent under a new event id, an empty answer.
 */
import { describe, expect, it } from 'vitest';
import { buttonsOf, useSlackHarness, type SlackHarness } from './slack-harness.js';

/**
 * The probe used 8-second windows; 3 s keeps the suite fast and exercises the same logic:
 * the retry budget stays the production 60 s, backoff (0.5, 1, 2, 4 s…) and Retry-After waits are
 * the real ones, and a window of any length under the budget ends the same way.
 */
const FAULT_WINDOW_MS = 3_000;

const finished = (h: SlackHarness, channel: string, threadTs: string, text: string) => () =>
  h.botReplies(channel, threadTs).some((message) => message.text.includes(text) && buttonsOf(message).length === 0);

// Both ways a reply reaches Slack: the streaming methods, and placeholder + chat.update where the
// workspace refuses them. Each meets a window on its first call, then a longer one on its later calls.
const MODES = [
  {
    label: 'streamed',
    first: ['chat.startStream'],
    later: ['chat.appendStream', 'chat.stopStream'],
    pace: { chunkSize: 40, delayMsBetweenChunks: 20 },
  },
  // The first reply in a workspace tries streaming and posts its Stop companion meanwhile (a chat.postMessage that meets
  // the window too; a later reply's placeholder meets it, as both tests share one app): the reply streams for longer than the window, so that it is not complete (folded into one post) by the time it posts.
  {
    label: 'edited',
    first: ['chat.postMessage'],
    later: ['chat.update'],
    pace: { chunkSize: 8, delayMsBetweenChunks: 50 },
  },
];
const FAULTS = [
  { status: 500 as const, label: 'HTTP 500s' },
  { status: 429 as const, label: '429s with Retry-After: 1' },
];

/** The fault-window tests of one mode, on the app `current` returns (streaming offered or refused, as the mode needs). */
function faultWindowTests(mode: (typeof MODES)[number], current: () => SlackHarness): void {
  for (const fault of FAULTS) {
    it(`survives a window of ${fault.label} on ${[...mode.first, ...mode.later].join(', ')} during a ${mode.label} reply`, async () => {
      const harness = current();
      const { slack, model } = harness;
      const channel = harness.newChannel();
      const faultedBefore = slack.faulted.length;
      const answer = `All good in the end. ${'The reply keeps streaming while Slack fails. '.repeat(20)}Done.`;
      model.enqueue({ text: answer, ...mode.pace });
      slack.injectFaults({ methods: mode.first, status: fault.status, durationMs: FAULT_WINDOW_MS, retryAfterSeconds: 1 });
      slack.injectFaults({ methods: mode.later, status: fault.status, durationMs: 2 * FAULT_WINDOW_MS, retryAfterSeconds: 1 });
      const mention = await slack.mention({ userId: 'U1', channelId: channel, text: `<@${slack.botUserId}> geordi status?` });
      await slack.waitFor(finished(harness, channel, mention.ts, 'Done.'), { timeoutMs: 30_000 });

      const [reply, ...others] = harness.botReplies(channel, mention.ts);
      expect(others).toHaveLength(0);
      expect(reply!.text).toBe(answer);
      const faulted = slack.faulted.slice(faultedBefore);
      expect(faulted.filter((call) => mode.first.includes(call.method) && call.status === fault.status).length).toBeGreaterThan(0);
      expect(faulted.filter((call) => mode.later.includes(call.method) && call.status === fault.status).length).toBeGreaterThan(0);
      const [run] = await harness.runsIn(channel);
      expect(run!.status).toBe('completed');
    });
  }
}

describe('Slack faults', () => {
  // One app for every test of the same settings; each test has a channel of its own.
  describe('with the default settings', () => {
    const current = useSlackHarness();
    it('logs and drops envelopes without a payload (or without an event), then answers the next mention', async () => {
      const harness = current();
      const channel = harness.newChannel();
      const { slack, model } = harness;
      const logsBefore = harness.logs.length;
      const requestsBefore = model.requests.length;
      const withoutPayload = await slack.deliverRawEnvelope({
        envelope_id: 'env-no-payload',
        type: 'events_api',
        accepts_response_payload: false,
        retry_attempt: 0,
        retry_reason: '',
      });
      const withoutEvent = await slack.deliverRawEnvelope({
        envelope_id: 'env-no-event',
        type: 'events_api',
        accepts_response_payload: false,
        payload: { type: 'event_callback', team_id: slack.teamId },
      });
      const commandWithoutPayload = await slack.deliverRawEnvelope({ envelope_id: 'env-no-command', type: 'slash_commands', accepts_response_payload: true });
      // Acknowledged, so Slack would not re-deliver them.
      expect([withoutPayload.envelopeId, withoutEvent.envelopeId, commandWithoutPayload.envelopeId]).toEqual([
        'env-no-payload',
        'env-no-event',
        'env-no-command',
      ]);
      expect(harness.logs.slice(logsBefore).join('\n')).toMatch(/Slack envelope dropped: malformed/);

      model.enqueue({ text: 'Still here.' });
      const mention = await slack.mention({ userId: 'U1', channelId: channel, text: `<@${slack.botUserId}> geordi are you alive?` });
      await slack.waitFor(finished(harness, channel, mention.ts, 'Still here.'), { timeoutMs: 10_000 });
      expect(model.requests.slice(requestsBefore)).toHaveLength(1);
    });

    faultWindowTests(MODES[0]!, current);

    it('answers a mention re-sent under a new event id (same channel and ts) once', async () => {
      const harness = current();
      const channel = harness.newChannel();
      const { slack, model } = harness;
      const requestsBefore = model.requests.length;
      model.enqueue({ text: 'Only once.' });
      const mention = await slack.mention({ userId: 'U1', channelId: channel, text: `<@${slack.botUserId}> hello` });
      const again = await slack.deliverEvent(mention.event);
      expect(again.eventId).not.toBe(mention.eventId);
      await slack.waitFor(finished(harness, channel, mention.ts, 'Only once.'));
      // A later mention proves everything before it was handled (a second answer to the re-sent one would take its text).
      model.enqueue({ text: 'Second question answered.' });
      const other = await slack.mention({ userId: 'U1', channelId: channel, text: `<@${slack.botUserId}> second question` });
      await slack.waitFor(finished(harness, channel, other.ts, 'Second question answered.'));
      expect(harness.botReplies(channel, mention.ts)).toHaveLength(1);
      expect(model.requests.slice(requestsBefore)).toHaveLength(2);
    });

    for (const nonStreamed of [false, true]) {
      it(`says so in the thread when the model returns an empty answer (${nonStreamed ? 'not streamed' : 'streamed'})`, async () => {
        const harness = current();
        const channel = harness.newChannel();
        const { slack, model } = harness;
        model.enqueue({ text: '', nonStreamed });
        const mention = await slack.mention({ userId: 'U1', channelId: channel, text: `<@${slack.botUserId}> geordi say nothing` });
        await slack.waitFor(finished(harness, channel, mention.ts, '(no answer: the model returned nothing)'), { timeoutMs: 10_000 });
        const [run] = await harness.runsIn(channel);
        const events = await harness.app.engine.runs.events(run!.id);
        expect(events.some((event) => event.type === 'note' && /empty answer/.test(event.text))).toBe(true);
      });
    }
  });

  describe('with streaming refused', () => {
    const current = useSlackHarness({ emulator: { streamingRefusal: 'not_allowed' } });
    faultWindowTests(MODES[1]!, current);
  });

  describe('with a 1.5 s retry budget and streaming refused', () => {
    const current = useSlackHarness({ rateLimits: { retryBudgetMs: 1_500 }, emulator: { streamingRefusal: 'not_allowed' } });
    it('gives a turn up when Slack fails for longer than the retry budget: the thread says what failed, the run is failed', async () => {
      // The budget is shortened from 60 s to 1.5 s; the window outlasts it. Placeholder + chat.update
      // (streaming refused); the streaming methods' give-up is the next test.
      const harness = current();
      const channel = harness.newChannel();
      const { slack, model } = harness;
      model.enqueue({ text: 'This answer never fully arrives.', chunkSize: 8, delayMsBetweenChunks: 20 });
      const mention = await slack.mention({ userId: 'U1', channelId: channel, text: `<@${slack.botUserId}> geordi status?` });
      await slack.waitFor(() => harness.botReplies(channel, mention.ts).length === 1);
      slack.injectFaults({ methods: ['chat.update'], status: 500, durationMs: 120_000 });
      await slack.waitFor(
        () => harness.botReplies(channel, mention.ts).some((message) => /Slack kept failing \(HTTP 500 on chat\.update\)/.test(message.text)),
        {
          timeoutMs: 20_000,
        },
      );
      const note = harness.botReplies(channel, mention.ts).at(-1)!;
      expect(note.username).toBeUndefined();
      const [run] = await harness.runsIn(channel);
      expect(run!.status).toBe('failed');
    });
  });

  describe('with a 1.5 s retry budget', () => {
    const current = useSlackHarness({ rateLimits: { retryBudgetMs: 1_500 } });
    it('on the streaming methods, a give-up posts the rest of the reply in a new message that says why the first looks cut off', async () => {
      const harness = current();
      const channel = harness.newChannel();
      const { slack, model } = harness;
      model.enqueue({ text: 'This answer starts streaming and then Slack stops taking it, but every word arrives.', chunkSize: 6, delayMsBetweenChunks: 60 });
      const mention = await slack.mention({ userId: 'U1', channelId: channel, text: `<@${slack.botUserId}> geordi status?` });
      await slack.waitFor(() => slack.calls.some((call) => call.method === 'chat.startStream'));
      slack.injectFaults({ methods: ['chat.appendStream', 'chat.stopStream'], status: 500, durationMs: 120_000 });
      await slack.waitFor(() => harness.botReplies(channel, mention.ts).some((message) => message.text.includes('every word arrives.')), { timeoutMs: 20_000 });
      const continuation = harness.botReplies(channel, mention.ts).find((message) => message.text.includes('every word arrives.'))!;
      expect(continuation.text).toMatch(/Slack stopped taking updates to the message above/);
      const [run] = await harness.runsIn(channel);
      expect(run!.status).toBe('completed');
    });
  });
});
