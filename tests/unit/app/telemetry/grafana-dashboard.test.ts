/** docs/grafana-dashboard.json queries only metrics `/metrics` exposes. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createPrometheusMetrics } from '../../../../src/app/telemetry/prometheus-metrics.js';
import { idleProbes } from '../../../support/metric-probes.js';

const dashboard = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../../../docs/grafana-dashboard.json'), 'utf8')) as {
  panels: { title: string; targets: { expr: string }[] }[];
};

describe('the Grafana dashboard', () => {
  it('names only metrics the registry has', async () => {
    const metrics = createPrometheusMetrics({
      replica: 'r1',
      instanceId: 'i1',
      probes: idleProbes(),
    });
    const known = new Set((await metrics.registry.getMetricsAsJSON()).map((metric) => metric.name));
    const used = new Set(
      dashboard.panels.flatMap((panel) => panel.targets.flatMap((target) => target.expr.match(/\b(tsuka|process|nodejs)_[a-z0-9_]+/g) ?? [])),
    );
    const missing = [...used].filter((name) => !known.has(name.replace(/_(bucket|sum|count)$/, '')));
    expect(used.size).toBeGreaterThan(10);
    expect(missing).toEqual([]);
  });
});
