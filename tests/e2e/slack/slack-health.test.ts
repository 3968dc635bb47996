/** /healthz, /readyz and /metrics on TSUKA_HTTP_PORT. */
import os from 'node:os';
import { createServer } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startSlackHarness, useSlackHarness, type SlackHarness } from './slack-harness.js';

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
describe('health endpoints', () => {
  // One app for the tests of the default settings. Its counters add up over them, so the /metrics test
  // comes before any other run here; taking the model server away ends the app's use, so that test comes last.
  describe('on one app', () => {
    const shared = useSlackHarness();
    it('reports alive and ready (Slack connected, store open, model found) as JSON', async () => {
      const harness = shared();
      const base = `http://127.0.0.1:${harness.app.http.port}`;
      const health = await fetch(`${base}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ ok: true });
      const ready = await fetch(`${base}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({ ready: true, slack: true, store: true, model: 'qwen2.5-coder:7b', modelReachable: true });
    });

    it('counts a mention on /metrics: the run, its tokens, its model time and every Slack call — a 429 included — labelled by replica', async () => {
      const harness = shared();
      const channel = harness.newChannel();
      const { slack, model } = harness;
      const base = `http://127.0.0.1:${harness.app.http.port}`;
      model.enqueue({ text: 'Metrics are flowing.', usage: { prompt_tokens: 120, completion_tokens: 7 } });
      // The reply's first call meets one 429 (Retry-After: 1), then goes through: one answer, however late the call comes.
      slack.injectFaults({ methods: ['chat.startStream'], status: 429, durationMs: 60_000, retryAfterSeconds: 1, times: 1 });
      const mention = await slack.mention({ userId: 'U1', channelId: channel, text: `<@${slack.botUserId}> geordi report` });
      await slack.waitFor(
        () => harness.botReplies(channel, mention.ts).some((message) => message.text.includes('Metrics are flowing.') && message.stream === 'stopped'),
        {
          timeoutMs: 15_000,
        },
      );
      // The run is marked completed before its stream is stopped.
      expect((await harness.runsIn(channel))[0]?.status).toBe('completed');

      const response = await fetch(`${base}/metrics`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      const text = await response.text();
      // Labelled by the replica's stable name (the host name here); this start's Redis id is an info metric.
      const replica = os.hostname();
      const at = (name: string, labels: Record<string, string> = {}) => sampleOf(text, name, { ...labels, replica });
      expect(at('tsuka_replica_info', { instance: harness.app.engine.coordination.replicaId })).toBe(1);
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

    it('turns not ready when the model server goes away after start', async () => {
      const harness = shared();
      await harness.model.close();
      const ready = await fetch(`http://127.0.0.1:${harness.app.http.port}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ ready: false, modelReachable: false });
    });
  });

  describe('with no model server at the configured address', () => {
    const unreachable = useSlackHarness({ environment: { TSUKA_LLM_BASE_URL: 'http://127.0.0.1:9/v1' } });
    it('is not ready (503) when no model server answers', async () => {
      const harness = unreachable();
      const ready = await fetch(`http://127.0.0.1:${harness.app.http.port}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ ready: false, model: null });
    });
  });

  describe('with an OTLP endpoint', () => {
    // Its own app: the test stops it to make the exporter send what it holds.
    let harness: SlackHarness | undefined;
    afterEach(async () => {
      await harness?.stop();
      harness = undefined;
    });
    it('exports a run as OpenTelemetry spans to the OTLP endpoint: the run, its model call and tool call under it, Slack calls, the run id on each', async () => {
      // A local OTLP/HTTP receiver (JSON protocol) on 127.0.0.1.
      const batches: unknown[] = [];
      const receiver = createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          if (request.url === '/v1/traces') batches.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
          response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        });
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      const { port } = receiver.address() as { port: number };
      try {
        const started = await startSlackHarness({
          environment: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'tsuka-test' },
        });
        harness = started;
        const { slack, model } = started;
        model.enqueue({ toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }] });
        model.enqueue({ text: 'Traced.' });
        const mention = await slack.mention({ userId: 'U1', channelId: 'C1', text: `<@${slack.botUserId}> geordi list the files` });
        await slack.waitFor(() => started.botReplies('C1', mention.ts).some((message) => message.text.includes('Traced.') && message.stream === 'stopped'), {
          timeoutMs: 15_000,
        });
        const [run] = await started.app.engine.runs.list();
        // Stopping the app sends what the exporter still holds.
        harness = undefined;
        await started.stop();

        type Attribute = { key: string; value: { stringValue?: string; intValue?: number | string } };
        type JsonSpan = { name: string; spanId: string; parentSpanId?: string; attributes: Attribute[] };
        type Batch = { resourceSpans: { resource: { attributes: Attribute[] }; scopeSpans: { spans: JsonSpan[] }[] }[] };
        const resources = (batches as Batch[]).flatMap((batch) => batch.resourceSpans);
        expect(resources[0]!.resource.attributes).toContainEqual({ key: 'service.name', value: { stringValue: 'tsuka-test' } });
        const spans = resources.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans));
        const attribute = (span: JsonSpan, key: string) => span.attributes.find((entry) => entry.key === key)?.value.stringValue;
        const runSpan = spans.find((span) => span.name === 'run ask');
        expect(runSpan && attribute(runSpan, 'tsuka.run_id')).toBe(run!.id);
        const children = spans.filter((span) => span.parentSpanId === runSpan!.spanId);
        expect(children.filter((span) => span.name === 'chat qwen2.5-coder:7b')).toHaveLength(2);
        expect(children.map((span) => span.name)).toContain('tool list_dir');
        expect(children.every((span) => attribute(span, 'tsuka.run_id') === run!.id)).toBe(true);
        expect(spans.map((span) => span.name)).toEqual(expect.arrayContaining(['slack auth.test', 'slack chat.startStream']));
      } finally {
        await new Promise<void>((resolve) => receiver.close(() => resolve()));
      }
    });
  });
});
