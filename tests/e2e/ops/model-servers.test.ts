/**
 * Several model servers, the whole app (issue 13): `/readyz` lists each server with up/down and
 * slots in use; when every server stops answering the usual "no model" reply applies, and a server
 * back on its port answers the next mention (the mention probes the servers marked down).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedModelServer, type ScriptedModelServer } from '../../support/scripted-model-server.js';
import { startPlaygroundHarness, type PlaygroundHarness } from '../playground/playground-harness.js';

let harness: PlaygroundHarness | undefined;
const servers: ScriptedModelServer[] = [];
afterEach(async () => {
  await harness?.stop();
  harness = undefined;
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function readyz(): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${harness!.baseUrl}/readyz`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('several model servers (whole app)', () => {
  it('shows each server in /readyz, says "no model" while all are down, and uses a server again once it answers', async () => {
    const a = await startScriptedModelServer({ modelId: 'qwen2.5-coder:7b' });
    const b = await startScriptedModelServer({ modelId: 'qwen2.5-coder:7b' });
    servers.push(a, b);
    harness = await startPlaygroundHarness({ modelBaseURL: `${a.baseURL}, ${b.baseURL}`, environment: { TSUKA_LLM_CONCURRENCY: '1' } });
    expect(harness.logs.join('')).toContain('Model: qwen2.5-coder:7b on Custom endpoint');
    expect(harness.logs.join('')).toContain('2 of 2 servers up');
    const up = await readyz();
    expect(up.status).toBe(200);
    expect(up.body.modelServers).toEqual([
      { url: a.baseURL, up: true, slotsInUse: 0, capacity: 1 },
      { url: b.baseURL, up: true, slotsInUse: 0, capacity: 1 },
    ]);

    a.enqueue({ text: 'Answer from a server.' });
    b.enqueue({ text: 'Answer from a server.' });
    const first = await harness.say('@geordi hello');
    await harness.waitFor(() => harness!.thread(first).some((message) => message.text.includes('Answer from a server.')));

    // Both go away: the turn that finds out fails, both are marked down, and the next mention hears "no model".
    await Promise.all([a.close(), b.close()]);
    const failing = await harness.say('@geordi are you there?');
    await harness.waitFor(() => harness!.thread(failing).some((message) => /not reachable/.test(message.text)));
    const down = await readyz();
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({
      model: null,
      modelServers: [expect.objectContaining({ url: a.baseURL, up: false }), expect.objectContaining({ url: b.baseURL, up: false })],
    });
    const refused = await harness.say('@geordi hello?');
    await harness.waitFor(() => harness!.thread(refused).some((message) => message.text.includes('(TSUKA_LLM_BASE_URL) answers')));

    // B is back on its port: the next mention probes, finds it, and is answered.
    const back = await startScriptedModelServer({ modelId: 'qwen2.5-coder:7b', port: Number(new URL(b.baseURL).port) });
    servers.push(back);
    back.enqueue({ text: 'Back again.' });
    const again = await harness.say('@geordi hello again');
    await harness.waitFor(() => harness!.thread(again).some((message) => message.text.includes('Back again.')));
    const partly = await readyz();
    expect(partly.status).toBe(200);
    expect(partly.body.modelServers).toEqual([
      expect.objectContaining({ url: a.baseURL, up: false, reason: expect.stringContaining('not reachable') }),
      { url: b.baseURL, up: true, slotsInUse: 0, capacity: 1 },
    ]);
  });
});
