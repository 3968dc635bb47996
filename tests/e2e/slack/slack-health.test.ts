/** /healthz, /readyz and /metrics on TSUKA_HTTP_PORT. */
import { afterEach, describe, expect, it } from 'vitest';
import { startSlackHarness, type SlackHarness } from './slack-harness.js';

let harness: SlackHarness;

/** The value of the sample `name` whose labels include `labels` (Prometheus text format), NaN when absent. */
function sampleOf(text: string, name: string, labels: Record<string, string>): number {
  for (const line of text.split('\n')) {
    const match = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map(([, key, value]) => [key, value]));
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) return Number(match[3]);
  }
  return Number.NaN;
}
afterEach(async () => {
  await harness?.stop();
});

describe('health endpoints', () => {
  it('reports alive and ready (Slack connected, store open, model found) as JSON', async () => {
    harness = await startSlackHarness();
    const base = `http://127.0.0.1:${harness.app.http.port}`;
    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true });
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ ready: true, slack: true, store: true, model: 'qwen2.5-coder:7b', modelReachable: true });
  });

  it('turns not ready when the model server goes away after start', async () => {
    harness = await startSlackHarness();
    await harness.model.close();
    const ready = await fetch(`http://127.0.0.1:${harness.app.http.port}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ ready: false, modelReachable: false });
  });

  it('is not ready (503) when no model server answers', async () => {
    harness = await startSlackHarness({ environment: { TSUKA_LLM_BASE_URL: 'http://127.0.0.1:9/v1' } });
    const ready = await fetch(`http://127.0.0.1:${harness.app.http.port}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ ready: false, model: null });
  });

  it('counts a mention on /metrics: the run, its tokens, its model time and every Slack call — a 429 included — labelled by replica', async () => {
    harness = await startSlackHarness();
    const { slack, model } = harness;
    const base = `http://127.0.0.1:${harness.app.http.port}`;
    model.enqueue({ text: 'Metrics are flowing.', usage: { prompt_tokens: 120, completion_tokens: 7 } });
    // The reply's first call meets one 429 (Retry-After: 1), then goes through.
    slack.injectFaults({ methods: ['chat.startStream'], status: 429, durationMs: 1_000, retryAfterSeconds: 1 });
    const mention = await slack.mention({ userId: 'U1', channelId: 'C1', text: `<@${slack.botUserId}> geordi report` });
    await slack.waitFor(
      () => harness.botReplies('C1', mention.ts).some((message) => message.text.includes('Metrics are flowing.') && message.stream === 'stopped'),
      {
        timeoutMs: 15_000,
      },
    );
    // The run is marked completed before its stream is stopped.
    expect((await harness.app.engine.runs.list())[0]?.status).toBe('completed');

    const response = await fetch(`${base}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    const replica = harness.app.engine.coordination.replicaId;
    const at = (name: string, labels: Record<string, string> = {}) => sampleOf(text, name, { ...labels, replica });
    expect(at('tsuka_runs_total', { kind: 'ask', outcome: 'completed', platform: 'slack' })).toBe(1);
    expect(at('tsuka_run_duration_seconds_count', { kind: 'ask', outcome: 'completed' })).toBe(1);
    expect(at('tsuka_model_tokens_total', { direction: 'input' })).toBe(120);
    expect(at('tsuka_model_tokens_total', { direction: 'output' })).toBe(7);
    expect(at('tsuka_model_time_seconds_count', { outcome: 'ok' })).toBe(1);
    expect(at('tsuka_platform_calls_total', { platform: 'slack', method: 'chat.startStream', status: '429' })).toBe(1);
    expect(at('tsuka_platform_calls_total', { platform: 'slack', method: 'chat.startStream', status: '200' })).toBe(1);
    expect(at('tsuka_model_servers_up')).toBe(1);
    expect(at('tsuka_model_queue_waiting')).toBe(0);
    expect(at('tsuka_approvals_pending')).toBe(0);
    expect(at('tsuka_replicas')).toBe(1);
    // The process defaults come along.
    expect(at('process_resident_memory_bytes')).toBeGreaterThan(0);
  });
});
