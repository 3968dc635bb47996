/**
 * Traces, when `OTEL_EXPORTER_OTLP_ENDPOINT` is set: the official Node SDK (`@opentelemetry/sdk-node`)
 * exporting over OTLP (http/protobuf, http/json or grpc) under `OTEL_SERVICE_NAME` (default
 * `tsuka`). A run is a span (`tsuka.run_id` links it to `tsuka export`); its model calls, tool
 * calls and approval waits are its children; platform calls are spans of their own, children of
 * the run when made in its context. Loaded by a dynamic import only when configured: without the
 * variable nothing of OpenTelemetry is loaded. The SDK's own metrics and logs stay off
 * (`/metrics` is the metrics).
 */
import type { Context, Span, Tracer } from '@opentelemetry/api';
import type { tracing } from '@opentelemetry/sdk-node';
import type { TelemetryConfig } from '../../config/telemetry-config.js';
import type { TelemetrySink } from './telemetry-sink.js';

export interface OtelTraces {
  sink: TelemetrySink;
  /** Ends the runs still open, sends what is buffered and unregisters the SDK. */
  stop(): Promise<void>;
}

/** Runs whose span is open (a run that never ended is dropped beyond this). */
const MAX_OPEN_RUNS = 5_000;

async function createExporter(otlp: NonNullable<TelemetryConfig['otlp']>): Promise<tracing.SpanExporter> {
  if (otlp.protocol === 'http/json') {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    return new OTLPTraceExporter({ url: otlp.endpoint, headers: otlp.headers });
  }
  if (otlp.protocol === 'grpc') {
    // gRPC takes its headers (metadata) from OTEL_EXPORTER_OTLP_HEADERS itself.
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-grpc');
    return new OTLPTraceExporter({ url: otlp.endpoint });
  }
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-proto');
  return new OTLPTraceExporter({ url: otlp.endpoint, headers: otlp.headers });
}

export async function startOtelTraces(otlp: NonNullable<TelemetryConfig['otlp']>, activeRunId: () => string | undefined): Promise<OtelTraces> {
  const [{ NodeSDK, api }, exporter] = await Promise.all([import('@opentelemetry/sdk-node'), createExporter(otlp)]);
  const sdk = new NodeSDK({
    serviceName: otlp.serviceName,
    traceExporter: exporter,
    instrumentations: [],
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();
  const tracer: Tracer = api.trace.getTracer('tsuka');
  const runs = new Map<string, Span>();
  const { SpanStatusCode, SpanKind } = api;

  const parentOf = (runId: string | undefined): Context => {
    const run = runId === undefined ? undefined : runs.get(runId);
    return run ? api.trace.setSpan(api.ROOT_CONTEXT, run) : api.ROOT_CONTEXT;
  };
  const finished = (span: Span, outcome: string, failed: boolean, endedAt: number): void => {
    span.setAttribute('tsuka.outcome', outcome);
    if (failed) span.setStatus({ code: SpanStatusCode.ERROR, message: outcome });
    span.end(new Date(endedAt));
  };

  const sink: TelemetrySink = {
    runStarted(run) {
      if (runs.size >= MAX_OPEN_RUNS) runs.delete(runs.keys().next().value as string);
      const span = tracer.startSpan(
        `run ${run.kind}`,
        { startTime: new Date(run.startedAt), attributes: { 'tsuka.run_id': run.runId, 'tsuka.run.kind': run.kind, 'tsuka.platform': run.platform } },
        api.ROOT_CONTEXT,
      );
      runs.set(run.runId, span);
    },
    runEnded(run) {
      const span = runs.get(run.runId);
      if (!span) return;
      runs.delete(run.runId);
      finished(span, run.outcome, run.outcome === 'failed', run.endedAt);
    },
    modelCall(call) {
      const span = tracer.startSpan(
        `chat ${call.modelId}`,
        {
          kind: SpanKind.CLIENT,
          startTime: new Date(call.startedAt),
          attributes: {
            ...(call.runId ? { 'tsuka.run_id': call.runId } : {}),
            'gen_ai.operation.name': 'chat',
            'gen_ai.provider.name': call.providerId,
            'gen_ai.request.model': call.modelId,
            'gen_ai.usage.input_tokens': call.promptTokens,
            'gen_ai.usage.output_tokens': call.completionTokens,
          },
        },
        parentOf(call.runId),
      );
      finished(span, call.outcome, call.outcome === 'error', call.endedAt);
    },
    toolCall(call) {
      const span = tracer.startSpan(
        `tool ${call.tool}`,
        { startTime: new Date(call.startedAt), attributes: { 'tsuka.run_id': call.runId, 'tsuka.tool': call.tool, 'tsuka.tool.risk': call.risk } },
        parentOf(call.runId),
      );
      finished(span, call.outcome, call.outcome === 'error', call.endedAt);
    },
    approvalStarted: () => undefined,
    approvalWait(wait) {
      const span = tracer.startSpan(
        `approval ${wait.tool}`,
        { startTime: new Date(wait.startedAt), attributes: { 'tsuka.run_id': wait.runId, 'tsuka.tool': wait.tool, 'tsuka.tool.risk': wait.risk } },
        parentOf(wait.runId),
      );
      finished(span, wait.outcome, false, wait.endedAt);
    },
    platformCall(call) {
      const runId = activeRunId();
      const span = tracer.startSpan(
        `${call.platform} ${call.method}`,
        {
          kind: SpanKind.CLIENT,
          startTime: new Date(call.startedAt),
          attributes: {
            ...(runId && runs.has(runId) ? { 'tsuka.run_id': runId } : {}),
            'tsuka.platform': call.platform,
            'tsuka.platform.method': call.method,
            'tsuka.platform.status': call.status,
          },
        },
        parentOf(runId),
      );
      finished(span, call.status, call.status !== '200', call.endedAt);
    },
  };

  return {
    sink,
    async stop() {
      const now = Date.now();
      for (const span of runs.values()) finished(span, 'interrupted', false, now);
      runs.clear();
      await sdk.shutdown();
      // The next start in this process (tests) registers its own SDK.
      api.trace.disable();
      api.context.disable();
      api.propagation.disable();
    },
  };
}
