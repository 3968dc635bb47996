/**
 * Replies under load on Slack, measured end to end: the real Bolt against the emulator with
 * Slack's quotas on, a scripted model streaming 300 tokens at ~50 tokens/s. Scenarios: 1 stream;
 * 20 streams in one channel; 20 streams in 20 channels. Prints each figure next to its goal
 * (issue 14); never asserts. Run: npx tsx bench/slack-reply-bench.ts [streaming|edits]
 */
import { startSlackHarness } from '../tests/e2e/slack/slack-harness.js';
import { benchSize } from './bench-size.js';

const TOKENS = benchSize(300, 30);
const TOKEN_DELAY_MS = 20; // ~50 tokens/s
/** Five characters a token: four letters and a space. */
const token = (index: number) => `${String.fromCharCode(97 + (index % 26))}${'bcd'} `;

interface Scenario {
  name: string;
  streams: number;
  channels: number;
  goals: { completeS?: number; ackS?: number; firstTextP95S?: number };
}

const SCENARIOS: Scenario[] = [
  { name: '1 stream', streams: 1, channels: 1, goals: {} },
  { name: '20 streams in one channel', streams: 20, channels: 1, goals: { completeS: 35, ackS: 2 } },
  { name: '20 streams in 20 channels', streams: 20, channels: 20, goals: { completeS: 15, firstTextP95S: 2 } },
];
const MAX_429 = 2;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const verdict = (ok: boolean) => (ok ? 'ok' : 'MISSED');

async function measure(scenario: Scenario, refuseStreaming: boolean): Promise<void> {
  const harness = await startSlackHarness({
    environment: { TSUKA_LOG_LEVEL: 'error', TSUKA_LLM_CONCURRENCY: String(scenario.streams), TSUKA_STREAM_EDIT_MS: '1000' },
    ...(refuseStreaming ? { emulator: { streamingRefusal: 'not_allowed' as const } } : {}),
  });
  const { slack, model } = harness;
  const firstTokenAt = new Map<string, number>();
  for (let index = 0; index < scenario.streams; index++) {
    model.enqueue((body) => {
      const question = (body as { messages: { content: string }[] }).messages.at(-1)!.content;
      firstTokenAt.set(question, Date.now());
      const text = `${question}: ${Array.from({ length: TOKENS }, (_, at) => token(at)).join('')}END`;
      return { text, chunkSize: 5, delayMsBetweenChunks: TOKEN_DELAY_MS };
    });
  }
  const channelOf = (index: number) => `C${index % scenario.channels}`;
  const started = Date.now();
  const mentionAt: number[] = [];
  const mentions = await Promise.all(
    Array.from({ length: scenario.streams }, (_, index) => {
      mentionAt[index] = Date.now();
      return slack.mention({ userId: `U${index}`, channelId: channelOf(index), text: `<@${slack.botUserId}> geordi q${index}` });
    }),
  );
  const completedAt = new Map<number, number>();
  const done = (index: number) =>
    harness
      .botReplies(channelOf(index), mentions[index]!.ts)
      .some(
        (message) =>
          message.text.includes('END') &&
          message.stream !== 'open' &&
          !(message.blocks ?? []).some(
            (block) =>
              (block as { type?: string }).type === 'actions' &&
              ((block as { elements?: { type?: string }[] }).elements ?? []).some((element) => element.type === 'button'),
          ),
      );
  await slack.waitFor(
    () => {
      for (let index = 0; index < scenario.streams; index++) if (!completedAt.has(index) && done(index)) completedAt.set(index, Date.now());
      return completedAt.size === scenario.streams;
    },
    { timeoutMs: 300_000 },
  );
  const acks: number[] = [];
  const firstTexts: number[] = [];
  for (const [index, mention] of mentions.entries()) {
    const inThread = (call: (typeof slack.calls)[number]) =>
      call.body.thread_ts === mention.ts ||
      (call.method === 'chat.update' && harness.botReplies(channelOf(index), mention.ts).some((reply) => reply.ts === call.body.ts));
    const sign = slack.calls.find(
      (call) =>
        call.status === 200 &&
        call.response.ok !== false &&
        (['chat.postMessage', 'chat.startStream', 'assistant.threads.setStatus'].includes(call.method) ? inThread(call) : false),
    );
    if (sign) acks.push(sign.at - mentionAt[index]!);
    const first = slack.calls.find(
      (call) =>
        call.status === 200 &&
        ['chat.postMessage', 'chat.startStream', 'chat.update'].includes(call.method) &&
        inThread(call) &&
        String(call.body.markdown_text ?? call.body.text ?? '').includes(`q${index}:`),
    );
    const tokenAt = firstTokenAt.get(`q${index}`);
    if (first && tokenAt) firstTexts.push(first.at - tokenAt);
  }
  const allDone = Math.max(...completedAt.values()) - started;
  const count = (method: string) => slack.calls.filter((call) => call.method === method && call.status === 200).length;
  const { goals } = scenario;
  const lines = [
    `${scenario.name} (${refuseStreaming ? 'placeholder + chat.update' : 'streaming methods'}):`,
    `  all complete after the mentions: ${seconds(allDone)}${goals.completeS ? ` — goal ≤ ${goals.completeS} s: ${verdict(allDone <= goals.completeS * 1000)}` : ''}`,
    `  mention → visible sign: p50 ${seconds(percentile(acks, 50))}, max ${seconds(Math.max(...acks))}${goals.ackS ? ` — goal each ≤ ${goals.ackS} s: ${verdict(Math.max(...acks) <= goals.ackS * 1000)}` : ''}`,
    `  model's first token → first text: p50 ${seconds(percentile(firstTexts, 50))}, p95 ${seconds(percentile(firstTexts, 95))}${goals.firstTextP95S ? ` — goal p95 ≤ ${goals.firstTextP95S} s: ${verdict(percentile(firstTexts, 95) <= goals.firstTextP95S * 1000)}` : ''}`,
    `  429s: ${slack.rateLimited.length}${slack.rateLimited.length > 0 ? ` (${slack.rateLimited.map((call) => call.method).join(', ')})` : ''} — goal ≤ ${MAX_429}: ${verdict(slack.rateLimited.length <= MAX_429)}`,
    `  calls: postMessage ${count('chat.postMessage')}, update ${count('chat.update')}, startStream ${count('chat.startStream')}, appendStream ${count('chat.appendStream')}, stopStream ${count('chat.stopStream')}, setStatus ${count('assistant.threads.setStatus')}`,
  ];
  console.log(lines.join('\n'));
  await harness.stop();
}

const modes = process.argv[2] === 'edits' ? [true] : process.argv[2] === 'streaming' ? [false] : [false, true];
for (const refuse of modes) for (const scenario of SCENARIOS) await measure(scenario, refuse);
