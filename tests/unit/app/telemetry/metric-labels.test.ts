/** Metric labels an operator can keep (issue 40): a stable replica label, the start's id as info, each model server's state. */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createPrometheusMetrics } from '../../../../src/app/telemetry/prometheus-metrics.js';
import { loadConfig } from '../../../../src/config/load-config.js';
import { idleProbes } from '../../../support/metric-probes.js';

const probes = (servers: { url: string; up: boolean }[]) => idleProbes({ servers: async () => servers });

describe('metric labels', () => {
  it('labels every series with the configured replica name, the same at each start; the start id is an info metric', async () => {
    const starts = ['3f9c1a2b', '77d0e4c1'].map((instanceId) => createPrometheusMetrics({ replica: 'bot-a', instanceId, probes: probes([]) }));
    const texts = await Promise.all(starts.map(async (metrics) => (await metrics.scrape()).body));
    for (const [index, text] of texts.entries()) {
      const series = text.split('\n').filter((line) => line.startsWith('tsuka_') || line.startsWith('process_'));
      expect(series.length).toBeGreaterThan(5);
      expect(series.filter((line) => !line.includes('replica="bot-a"'))).toEqual([]);
      expect(text).toContain(`tsuka_replica_info{instance="${['3f9c1a2b', '77d0e4c1'][index]}",replica="bot-a"} 1`);
    }
    expect(texts[0]).not.toContain('77d0e4c1');
  });

  it('says which model server is up, by URL without its credentials, beside the count', async () => {
    const metrics = createPrometheusMetrics({
      replica: 'bot-a',
      instanceId: 'i1',
      probes: probes([
        { url: 'http://127.0.0.1:11434/v1', up: true },
        { url: 'http://user:hunter2@10.0.0.7:8080/v1', up: false },
      ]),
    });
    const text = (await metrics.scrape()).body;
    expect(text).toContain('tsuka_model_server_up{server="http://127.0.0.1:11434/v1",replica="bot-a"} 1');
    expect(text).toContain('tsuka_model_server_up{server="http://10.0.0.7:8080/v1",replica="bot-a"} 0');
    expect(text).toContain('tsuka_model_servers_up{replica="bot-a"} 1');
    expect(text).not.toContain('hunter2');
  });

  it('takes the replica name from TSUKA_REPLICA_NAME, else the host name (never a random id)', async () => {
    const directory = await mkdtemp(path.join(os.tmpdir(), 'tsuka-replica-name-'));
    try {
      const load = (environment: NodeJS.ProcessEnv) => loadConfig({ environment, workingDirectory: directory, rootDirectory: directory });
      expect(load({ TSUKA_REPLICA_NAME: 'bot-a' }).replicaName).toBe('bot-a');
      expect(load({}).replicaName).toBe(os.hostname());
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
