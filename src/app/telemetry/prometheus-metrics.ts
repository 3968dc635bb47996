/**
 * The Prometheus metrics of one replica (prom-client, its own registry, every series labelled
 * `replica`): counters and histograms fed by the telemetry sink, gauges read when scraped, plus
 * the process defaults (CPU, memory, event loop, handles). Loaded only by `tsuka start`.
 * The `replica` label is stable across restarts (`TSUKA_REPLICA_NAME`, else the host name), so a
 * restart continues its series instead of starting dead ones; the random id this start has in Redis
 * is an info metric (`tsuka_replica_info{instance}`).
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { TelemetrySink } from './telemetry-sink.js';

/** What the gauges read at scrape time. */
export interface MetricsProbes {
  /** Model requests of this process waiting for a generation slot. */
  queueWaiting(): number;
  /** Each configured model server and whether it answers; an injected model is one server, up. */
  servers(): Promise<{ url: string; up: boolean }[]>;
  /** Approvals this replica waits for. */
  approvalsPending(): number;
  /** Replicas whose lease is alive (1 without Redis). */
  replicas(): Promise<number>;
}

export interface PrometheusMetrics {
  sink: TelemetrySink;
  registry: Registry;
  /** The text exposition, with its content type. */
  scrape(): Promise<{ contentType: string; body: string }>;
}

const seconds = (startedAt: number, endedAt: number) => Math.max(0, endedAt - startedAt) / 1000;

/** A server's label: its URL without any user or password in it. */
function serverLabel(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return url;
  }
}

export function createPrometheusMetrics(options: { replica: string; instanceId: string; probes: MetricsProbes }): PrometheusMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ replica: options.replica });
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const { probes } = options;
  new Gauge({
    name: 'tsuka_replica_info',
    help: "This start of the replica: its id in Redis's leases (new at each start).",
    labelNames: ['instance'],
    registers,
  }).set({ instance: options.instanceId }, 1);

  const runs = new Counter({
    name: 'tsuka_runs_total',
    help: 'Runs ended, by kind (ask, call, team, goal), outcome and platform.',
    labelNames: ['kind', 'outcome', 'platform'],
    registers,
  });
  const runDuration = new Histogram({
    name: 'tsuka_run_duration_seconds',
    help: 'How long runs took, from the mention or command to their end.',
    labelNames: ['kind', 'outcome'],
    buckets: [1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600],
    registers,
  });
  const tokens = new Counter({
    name: 'tsuka_model_tokens_total',
    help: 'Tokens the model servers reported, input (prompt) and output (completion).',
    labelNames: ['direction'],
    registers,
  });
  const modelTime = new Histogram({
    name: 'tsuka_model_time_seconds',
    help: 'Model calls, from the request (queue wait included) to the last token.',
    labelNames: ['outcome'],
    buckets: [0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 80, 160, 320, 900],
    registers,
  });
  new Gauge({
    name: 'tsuka_model_queue_waiting',
    help: 'Model requests of this replica waiting for a generation slot.',
    registers,
    collect() {
      this.set(probes.queueWaiting());
    },
  });
  new Gauge({
    name: 'tsuka_model_servers_up',
    help: 'Model servers answering.',
    registers,
    async collect() {
      this.set((await probes.servers()).filter((server) => server.up).length);
    },
  });
  new Gauge({
    name: 'tsuka_model_server_up',
    help: 'Whether each model server answers (1) or not (0).',
    labelNames: ['server'],
    registers,
    async collect() {
      const servers = await probes.servers();
      this.reset();
      for (const server of servers) this.set({ server: serverLabel(server.url) }, server.up ? 1 : 0);
    },
  });
  new Gauge({
    name: 'tsuka_approvals_pending',
    help: 'Approval prompts this replica waits on.',
    registers,
    collect() {
      this.set(probes.approvalsPending());
    },
  });
  const approvals = new Counter({ name: 'tsuka_approvals_total', help: 'Approvals decided, by outcome.', labelNames: ['outcome'], registers });
  const approvalWait = new Histogram({
    name: 'tsuka_approval_wait_seconds',
    help: 'How long approvals waited for their decision.',
    buckets: [5, 15, 30, 60, 120, 300, 600, 1800, 3600],
    registers,
  });
  const toolCalls = new Counter({
    name: 'tsuka_tool_calls_total',
    help: 'Tool calls, by tool, risk and outcome.',
    labelNames: ['tool', 'risk', 'outcome'],
    registers,
  });
  const platformCalls = new Counter({
    name: 'tsuka_platform_calls_total',
    help: 'Chat platform calls (each attempt), by platform, method and status (429: rate limited).',
    labelNames: ['platform', 'method', 'status'],
    registers,
  });
  new Gauge({
    name: 'tsuka_replicas',
    help: 'Replicas alive (their lease in Redis), as this replica sees them; 1 without Redis.',
    registers,
    async collect() {
      this.set(await probes.replicas());
    },
  });

  const sink: TelemetrySink = {
    runStarted: () => undefined,
    runEnded(run) {
      runs.inc({ kind: run.kind, outcome: run.outcome, platform: run.platform });
      runDuration.observe({ kind: run.kind, outcome: run.outcome }, seconds(run.startedAt, run.endedAt));
    },
    modelCall(call) {
      tokens.inc({ direction: 'input' }, call.promptTokens);
      tokens.inc({ direction: 'output' }, call.completionTokens);
      modelTime.observe({ outcome: call.outcome }, seconds(call.startedAt, call.endedAt));
    },
    toolCall(call) {
      toolCalls.inc({ tool: call.tool, risk: call.risk, outcome: call.outcome });
    },
    approvalStarted: () => undefined,
    approvalWait(wait) {
      approvals.inc({ outcome: wait.outcome });
      approvalWait.observe(seconds(wait.startedAt, wait.endedAt));
    },
    platformCall(call) {
      platformCalls.inc({ platform: call.platform, method: call.method, status: call.status });
    },
  };

  return {
    sink,
    registry,
    async scrape() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
