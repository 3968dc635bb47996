/**
 * Streaming on Slack, measured end to end (the real Bolt against the emulator, the scripted model
 * server over HTTP): time from the model's first token to the first visible text in the thread,
 * and Slack calls per streamed reply, at 1 and at 20 concurrent streams. Prints figures only.
 * Run: npx tsx bench/slack-stream-bench.ts
 */
import { startSlackHarness } from '../tests/e2e/slack/slack-harness.js';

const REPLY_WORDS = 400;
const CHUNK = 24;
const CHUNK_DELAY_MS = 15; // ~1,600 chars/s: a fast local model

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

async function measure(concurrent: number): Promise<void> {
  const harness = await startSlackHarness({
    // Generations in parallel, so the figures are the platform's (by default a LOCAL server runs one at a time).
    environment: { TSUKA_STREAM_EDIT_MS: '1000', TSUKA_LOG_LEVEL: 'error', TSUKA_LLM_CONCURRENCY: String(concurrent) },
    // Real Slack limits in the emulator and the bot's defaults: this is what production sees.
  });
  const { slack, model } = harness;
  const firstTokenAt = new Map<string, number>();
  for (let index = 0; index < concurrent; index++) {
    model.enqueue((body) => {
      const question = (body as { messages: { content: string }[] }).messages.at(-1)!.content;
      firstTokenAt.set(question, Date.now());
      return { text: `${question}: ${'word '.repeat(REPLY_WORDS)}END`, chunkSize: CHUNK, delayMsBetweenChunks: CHUNK_DELAY_MS };
    });
  }
  const channels = Array.from({ length: concurrent }, (_, index) => (concurrent === 1 ? 'C1' : `C${index % 5}`));
  const started = Date.now();
  const mentions = await Promise.all(channels.map((channel, index) => slack.mention({ userId: `U${index}`, channelId: channel, text: `<@${slack.botUserId}> geordi q${index}` })));
  await slack.waitFor(
    () => mentions.every((mention, index) => harness.botReplies(channels[index]!, mention.ts).some((message) => message.text.includes('END') && !(message.blocks ?? []).length)),
    { timeoutMs: 300_000 },
  );
  const elapsed = Date.now() - started;
  const latencies: number[] = [];
  const callsPerReply: number[] = [];
  for (const [index, mention] of mentions.entries()) {
    const [reply] = harness.botReplies(channels[index]!, mention.ts);
    // The first edit that shows reply text (not the placeholder or its "waiting for the model" note).
    const firstText = slack.calls.find((call) => call.method === 'chat.update' && call.body.ts === reply!.ts && String(call.body.text ?? '').includes(`q${index}:`));
    const tokenAt = firstTokenAt.get(`q${index}`)!;
    if (firstText) latencies.push(firstText.at - tokenAt);
    callsPerReply.push(slack.calls.filter((call) => (call.method === 'chat.update' && call.body.ts === reply!.ts) || (call.method === 'chat.postMessage' && call.body.thread_ts === mention.ts)).length);
  }
  console.log(
    `${String(concurrent).padStart(2)} concurrent stream(s): first token → first visible text p50 ${percentile(latencies, 50)} ms, p95 ${percentile(latencies, 95)} ms; ` +
      `Slack calls per reply p50 ${percentile(callsPerReply, 50)}, max ${Math.max(...callsPerReply)}; 429s absorbed ${slack.rateLimited.length}; all done in ${(elapsed / 1000).toFixed(1)} s`,
  );
  await harness.stop();
}

await measure(1);
await measure(20);
