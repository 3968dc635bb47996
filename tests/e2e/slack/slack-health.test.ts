/** /healthz and /readyz on TSUKA_HTTP_PORT. */
import { afterEach, describe, expect, it } from 'vitest';
import { startSlackHarness, type SlackHarness } from './slack-harness.js';

let harness: SlackHarness;
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
});
