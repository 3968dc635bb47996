/**
 * Telemetry of `tsuka start`: the Prometheus metrics behind `GET /metrics`, and OpenTelemetry
 * traces when configured — both fed by observers of what already exists (the run store, the
 * model, the approval store) and by the adapters' platform-call channel. `instrument` hands the
 * command layer the observed pieces; nothing in the agent loop or the adapters calls telemetry.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { AppConfig } from '../../config/app-config.js';
import type { Logger } from '../../core/logger.js';
import type { QueuedModel } from '../../core/model/language-model.js';
import type { Engine } from '../create-engine.js';
import type { AppModelControl } from '../model-control.js';
import type { RouteHandler } from '../http-server.js';
import { PLATFORM_CALL_CHANNEL, type PlatformCallReport } from '../../adapters/shared/platform-calls.js';
import { fanOut, type TelemetrySink } from './telemetry-sink.js';
import { activeRunId, observeRunStore } from './observe-runs.js';
import { observeModelControl } from './observe-model.js';
import { observeApprovalStore } from './observe-approvals.js';
import { metricsRoute } from './metrics-route.js';

export interface AppTelemetry {
  /** The engine and model control the command layer uses: runs, approvals and the model observed. */
  engine: Engine;
  models: AppModelControl;
  routes: Record<string, RouteHandler>;
  stop(): Promise<void>;
}

/** How long the count of live replicas (a scan of Redis) is reused between scrapes. */
const REPLICA_COUNT_TTL_MS = 10_000;

export async function startTelemetry(options: { config: AppConfig; engine: Engine; models: AppModelControl; logger: Logger }): Promise<AppTelemetry> {
  const { config, engine, models, logger } = options;
  const approvals = { pending: () => 0 };
  const [{ createPrometheusMetrics }, traces] = await Promise.all([
    import('./prometheus-metrics.js'),
    config.telemetry.otlp ? import('./otel-traces.js').then(({ startOtelTraces }) => startOtelTraces(config.telemetry.otlp!, activeRunId)) : undefined,
  ]);
  const metrics = createPrometheusMetrics({
    replica: config.replicaName,
    instanceId: engine.coordination.replicaId,
    probes: {
      queueWaiting: () => {
        const model = models.current()?.model as Partial<QueuedModel> | undefined;
        return typeof model?.waiting === 'function' ? model.waiting() : 0;
      },
      servers: async () => {
        const servers = await models.servers();
        if (servers.length === 0) return models.current() ? [{ url: 'injected', up: true }] : [];
        return servers;
      },
      approvalsPending: () => approvals.pending(),
      replicas: replicaCounter(config, engine),
    },
  });
  const sinks: TelemetrySink[] = [metrics.sink, ...(traces ? [traces.sink] : [])];
  const sink = fanOut(sinks, (error) => logger.warn('telemetry could not record a fact', { error }));
  const onPlatformCall = (message: unknown) => sink.platformCall(message as PlatformCallReport);
  subscribe(PLATFORM_CALL_CHANNEL, onPlatformCall);
  const observedApprovals = observeApprovalStore(engine.approvals, sink);
  approvals.pending = observedApprovals.pending;
  const riskOf = (tool: string): string => engine.tools.schema(tool)?.riskLevel ?? engine.toolSchemas.get(tool)?.riskLevel ?? 'unknown';
  if (traces)
    logger.info('traces exported', {
      endpoint: config.telemetry.otlp!.endpoint,
      protocol: config.telemetry.otlp!.protocol,
      service: config.telemetry.otlp!.serviceName,
    });
  return {
    engine: { ...engine, runs: observeRunStore(engine.runs, sink, riskOf, { markRuns: traces !== undefined }), approvals: observedApprovals.store },
    models: observeModelControl(models, sink, activeRunId),
    routes: { 'GET /metrics': metricsRoute({ host: config.httpHost, token: config.telemetry.metricsToken, scrape: metrics.scrape, logger }) },
    async stop() {
      unsubscribe(PLATFORM_CALL_CHANNEL, onPlatformCall);
      await traces?.stop().catch((error: unknown) => logger.warn('traces could not be flushed', { error }));
    },
  };
}

function replicaCounter(config: AppConfig, engine: Engine): () => Promise<number> {
  if (!engine.coordination.shared || !config.storeUrl) return async () => 1;
  const storeUrl = config.storeUrl;
  let cached: { count: number; at: number } | undefined;
  return async () => {
    if (cached && Date.now() - cached.at < REPLICA_COUNT_TTL_MS) return cached.count;
    const { liveReplicas } = await import('../../core/coordination/redis-coordination.js');
    cached = { count: (await liveReplicas(storeUrl)).length, at: Date.now() };
    return cached.count;
  };
}
