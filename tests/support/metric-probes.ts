/** Gauge probes of an idle replica with one model server up, for tests of the metrics registry. */
import type { MetricsProbes } from '../../src/app/telemetry/prometheus-metrics.js';

export function idleProbes(overrides: Partial<MetricsProbes> = {}): MetricsProbes {
  return {
    queueWaiting: () => 0,
    servers: async () => [{ url: 'http://127.0.0.1:11434/v1', up: true }],
    approvalsPending: () => 0,
    replicas: async () => 1,
    ...overrides,
  };
}
