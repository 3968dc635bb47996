/**
 * Runs are marked in an AsyncLocalStorage only when traces need the mark. The attack: an
 * AsyncLocalStorage in use makes Node run a hook at every promise of the process, and every run
 * used one, traces or not (with 200 runs, several percent of the bot's CPU went to those hooks).
 * Own file: the mark, once made, stays in the worker's async context.
 */
import { describe, expect, it } from 'vitest';
import { activeRunId, observeRunStore } from '../../../../src/app/telemetry/observe-runs.js';
import { createPrometheusMetrics } from '../../../../src/app/telemetry/prometheus-metrics.js';
import { idleProbes } from '../../../support/metric-probes.js';
import { openStore } from '../../../../src/core/store/open-store.js';
import { createRunStore } from '../../../../src/core/store/run-store.js';

describe('run marks', () => {
  it('leaves the async context alone when traces do not need the run id', async () => {
    const store = await openStore({ url: 'memory', dataDirectory: '/unused' });
    const metrics = createPrometheusMetrics({
      replica: 'r1',
      instanceId: 'i1',
      probes: idleProbes(),
    });
    const runs = observeRunStore(createRunStore(store), metrics.sink, () => 'SAFE', { markRuns: false });
    const run = await runs.create({ kind: 'ask', title: 't', startedBy: 'slack:U1', where: { platform: 'slack', channelId: 'slack:T/C1' } });
    expect(run.id).not.toBe('');
    expect(activeRunId()).toBeUndefined();
    await runs.update(run.id, (record) => ({ ...record, status: 'completed', endedAt: record.createdAt + 1 }));
    // Metrics still count the run: they never needed the mark.
    expect((await metrics.scrape()).body).toContain('tsuka_runs_total{kind="ask",outcome="completed",platform="slack",replica="r1"} 1');
  });
});
