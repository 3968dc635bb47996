/**
 * Socket Mode acks under a burst (issue 42), not a test: 200 mentions sent at once over Socket Mode
 * to the real Bolt app (the Slack emulator, Slack's quotas on, the scripted model server), in 20
 * channels. Slack re-delivers an envelope that is not acknowledged within 3 s; the figure is the time
 * from the emulator sending each envelope to the bot's ack. Goal: p99 ≤ 100 ms, and no growth with
 * the burst (the ack must come before any store or Slack work for the envelope).
 * Run: `npx tsx bench/slack-ack-bench.ts [mentions]`.
 */
import { startSlackHarness } from '../tests/e2e/slack/slack-harness.js';
import { benchSize } from './bench-size.js';

const MENTIONS = Number(process.argv[2] ?? benchSize(200, 10));
const CHANNELS = 20;
const GOAL_P99_MS = 100;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

const harness = await startSlackHarness({ environment: { TSUKA_LOG_LEVEL: 'error', TSUKA_USER_EVENTS_PER_MINUTE: '10000' } });
const { slack, model } = harness;
for (let index = 0; index < MENTIONS; index += 1) model.enqueue({ text: `answer ${index}` });
// A warm-up mention: what loads at the first event is not the steady state.
await slack.mention({ userId: 'UWARM', channelId: 'CWARM', text: `<@${slack.botUserId}> geordi warm up` });
model.enqueue({ text: 'warm' });
const acks = await Promise.all(
  Array.from({ length: MENTIONS }, (_, index) =>
    slack.mention({ userId: `U${index}`, channelId: `C${index % CHANNELS}`, text: `<@${slack.botUserId}> geordi question ${index}` }),
  ),
);
const ackMs = acks.map((ack) => ack.ackMs);
const p99 = percentile(ackMs, 99);
console.log(
  `slack acks: ${MENTIONS} mentions at once over Socket Mode — ack p50 ${percentile(ackMs, 50).toFixed(1)} ms, ` +
    `p99 ${p99.toFixed(1)} ms (goal ≤ ${GOAL_P99_MS}: ${p99 <= GOAL_P99_MS ? 'met' : 'MISSED'}), max ${Math.max(...ackMs).toFixed(1)} ms`,
);
await harness.stop();
