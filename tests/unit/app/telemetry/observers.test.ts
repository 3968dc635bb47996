/**
 * Telemetry fed from what exists: the run store (runs, tool calls), the approval store (waits,
 * pending), the model port (tokens, time, the run it served) — scraped as Prometheus text.
 */
import { describe, expect, it } from 'vitest';
import { openStore } from '../../../../src/core/store/open-store.js';
import { createRunStore } from '../../../../src/core/store/run-store.js';
import { createApprovalStore } from '../../../../src/core/store/approval-store.js';
import { observeRunStore, activeRunId } from '../../../../src/app/telemetry/observe-runs.js';
import { observeApprovalStore } from '../../../../src/app/telemetry/observe-approvals.js';
import { observeModel } from '../../../../src/app/telemetry/observe-model.js';
import { createPrometheusMetrics } from '../../../../src/app/telemetry/prometheus-metrics.js';
import { idleProbes } from '../../../support/metric-probes.js';
import { createScriptedModel } from '../../../../src/core/model/scripted-model.js';
import { testApprovalSigner } from '../../../support/approval-signer.js';

async function setUp() {
  const store = await openStore({ url: 'memory', dataDirectory: '/unused' });
  const approvals = { pending: () => 0 };
  const metrics = createPrometheusMetrics({
    replica: 'r1',
    instanceId: 'i1',
    probes: idleProbes({ approvalsPending: () => approvals.pending() }),
  });
  const runs = observeRunStore(createRunStore(store), metrics.sink, (tool) => (tool === 'run_command' ? 'DANGEROUS' : 'SAFE'));
  const observed = observeApprovalStore(createApprovalStore(store, { signer: testApprovalSigner }), metrics.sink);
  approvals.pending = observed.pending;
  return { runs, approvals: observed.store, metrics, scrape: async () => (await metrics.scrape()).body };
}

const where = { platform: 'slack', channelId: 'slack:T/C1' };

describe('telemetry observers', () => {
  it('counts a run when it ends, with its tool calls by tool, risk and outcome', async () => {
    const { runs, scrape } = await setUp();
    const run = await runs.create({ kind: 'ask', title: 't', startedBy: 'slack:U1', where });
    await runs.appendEvent(run.id, { type: 'tool-call', agent: 'geordi', tool: 'run_command', summary: 'ls', callId: 'c1' });
    await runs.appendEvent(run.id, { type: 'tool-result', agent: 'geordi', tool: 'run_command', outcome: 'denied', display: 'denied', callId: 'c1' });
    expect(await scrape()).not.toMatch(/^tsuka_runs_total\{/m);
    await runs.update(run.id, (record) => ({ ...record, status: 'failed', endedAt: record.createdAt + 2_000 }));
    const text = await scrape();
    expect(text).toContain('tsuka_runs_total{kind="ask",outcome="failed",platform="slack",replica="r1"} 1');
    expect(text).toContain('tsuka_run_duration_seconds_sum{replica="r1",kind="ask",outcome="failed"} 2');
    expect(text).toContain('tsuka_tool_calls_total{tool="run_command",risk="DANGEROUS",outcome="denied",replica="r1"} 1');
  });

  it('shows an approval pending while it waits, then counts its outcome', async () => {
    const { runs, approvals, scrape } = await setUp();
    const run = await runs.create({ kind: 'ask', title: 't', startedBy: 'slack:U1', where });
    await approvals.create({
      id: 'a1',
      runId: run.id,
      toolCallId: 'c1',
      toolName: 'run_command',
      riskLevel: 'DANGEROUS',
      summary: 'rm -rf build',
      expiresAt: Date.now() + 60_000,
    });
    expect(await scrape()).toContain('tsuka_approvals_pending{replica="r1"} 1');
    await approvals.settle('a1', { status: 'approved', decidedBy: 'slack:U2' });
    const text = await scrape();
    expect(text).toContain('tsuka_approvals_pending{replica="r1"} 0');
    expect(text).toContain('tsuka_approvals_total{outcome="approved",replica="r1"} 1');
    expect(text).toContain('tsuka_approval_wait_seconds_count{replica="r1"} 1');
  });

  it("a model call made inside a run carries the run's id; its tokens and time are counted", async () => {
    const { runs, metrics, scrape } = await setUp();
    const calls: (string | undefined)[] = [];
    const sink = { ...metrics.sink, modelCall: (call: Parameters<typeof metrics.sink.modelCall>[0]) => (calls.push(call.runId), metrics.sink.modelCall(call)) };
    const model = observeModel(
      createScriptedModel([
        [
          { type: 'text-delta', text: 'hi' },
          { type: 'usage', usage: { promptTokens: 50, completionTokens: 3 } },
          { type: 'finish', reason: 'stop' },
        ],
      ]),
      sink,
      activeRunId,
    );
    const turn = async () => {
      const run = await runs.create({ kind: 'ask', title: 't', startedBy: 'slack:U1', where });
      for await (const _part of model.stream({ messages: [{ role: 'user', content: 'hello' }] })) void _part;
      return run.id;
    };
    const runId = await turn();
    expect(calls).toEqual([runId]);
    const text = await scrape();
    expect(text).toContain('tsuka_model_tokens_total{direction="input",replica="r1"} 50');
    expect(text).toContain('tsuka_model_tokens_total{direction="output",replica="r1"} 3');
    expect(text).toContain('tsuka_model_time_seconds_count{replica="r1",outcome="ok"} 1');
  });
});
