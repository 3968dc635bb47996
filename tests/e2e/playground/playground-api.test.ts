/** The playground end to end over its HTTP API and event stream: mentions, approvals, commands, guards, escaping. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sharedPlaygroundHarness, startPlaygroundHarness, type PlaygroundHarness } from './playground-harness.js';

/** An app of a test's own (another configuration than the shared one's), stopped after it. */
let own: PlaygroundHarness | undefined;
afterEach(async () => {
  await own?.stop();
  own = undefined;
});

const settled = (message: { buttons: unknown[] }) => message.buttons.length === 0;

describe('playground API', () => {
  const app = sharedPlaygroundHarness();
  it('starts instead of a platform and prints its URL in the start banner', async () => {
    const harness = app();
    expect(harness.app.surfaces.playground?.platform).toBe('playground');
    expect(harness.logs.join('')).toContain(`playground on http://127.0.0.1:${harness.port}/`);
    const page = await fetch(`${harness.baseUrl}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    expect(await page.text()).toContain('<script src="/app.js"');
    expect((await fetch(`${harness.baseUrl}/app.js`)).headers.get('content-type')).toMatch(/javascript/);
  });

  it("streams a mention's reply into its thread under Geordi's name, edit by edit", async () => {
    const h = app();
    const reply = 'The tests fail because the fixture path moved. '.repeat(5).trim();
    h.model.enqueue({ text: reply, chunkSize: 15, delayMsBetweenChunks: 40 });
    const root = await h.say('@geordi why does npm test fail?');
    await h.waitFor(() => h.thread(root).some((message) => message.text.includes(reply) && settled(message)));
    const [answer] = h.thread(root);
    // The generated picture from this server (an emoji needs a font the system may lack), the emoji kept beside it.
    expect(answer!.author).toMatchObject({ name: 'Geordi', imageUrl: '/avatars/geordi.png', emoji: '🔧', kind: 'character' });
    const texts = h.history.get(answer!.id)!;
    expect(texts[0]).toMatch(/💭/);
    // Seen growing: at least one partial text between the placeholder and the whole reply.
    expect(texts.some((text) => !text.includes('💭') && text.length < reply.length)).toBe(true);
    expect(texts.at(-1)).toContain(reply);
    // The user's own message is in the channel, and the model saw the question without the name.
    expect(h.messages.get(root)!.thread).toBeUndefined();
    expect(h.messages.get(root)!.author).toMatchObject({ name: 'you', kind: 'user' });
    const request = h.model.requests[0]!.body as { messages: { role: string; content: string }[] };
    expect(request.messages.at(-1)!.content).toBe('why does npm test fail?');
  });

  it('asks for approval in the thread and runs the tool once Approve is clicked through /api/actions', async () => {
    const h = app();
    h.model.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'notes/plan.md', content: '# Plan\n' } }] });
    h.model.enqueue((body) => ({
      text: `Tool said: ${(body as { messages: { role: string; content: string }[] }).messages.filter((m) => m.role === 'tool').at(-1)!.content}`,
    }));
    const root = await h.say('geordi write the plan');
    const prompt = () => h.thread(root).find((message) => message.buttons.some((button) => button.actionId === 'tsuka_approve'));
    await h.waitFor(() => prompt() !== undefined);
    const asked = prompt()!;
    expect(asked.text).toMatch(/write_file/);
    expect(asked.text).toMatch(/notes\/plan\.md/);
    expect(asked.buttons.map((button) => button.label)).toEqual(['Approve', 'Approve “write_file” for this run', 'Deny']);
    const approve = asked.buttons[0]!;
    // A value that was never on this message is refused: a click decides only its own approval.
    expect((await h.post('/api/actions', { message: asked.id, actionId: 'tsuka_approve', value: 'ffffffffffff' })).status).toBe(409);
    expect((await h.post('/api/actions', { message: asked.id, actionId: approve.actionId, value: approve.value })).status).toBe(202);
    await h.waitFor(() => h.thread(root).some((message) => message.text.includes('Tool said:') && settled(message)));
    expect(await readFile(path.join(h.workspace, 'notes/plan.md'), 'utf8')).toBe('# Plan\n');
    const decided = h.messages.get(asked.id)!;
    expect(decided.text).toMatch(/Approved by @you/);
    expect(decided.buttons).toEqual([]);
    // Issue 24, the order of events: the reply above the card ends with the call that asks; what the
    // call did ("🔧 write_file … — …") and the words after it come below the card, never above it.
    const thread = h.thread(root);
    const card = thread.findIndex((message) => message.id === asked.id);
    const above = thread.slice(0, card).map((message) => message.text);
    expect(above.join('\n')).toContain('🔐 write_file notes/plan.md — asks for approval');
    expect(above.join('\n')).not.toMatch(/🔧 write_file|Tool said:/);
    const below = thread.slice(card + 1).map((message) => message.text);
    expect(below.join('\n')).toMatch(/🔧 write_file notes\/plan\.md — [^\n]+\nTool said:/);
    // A second click on the decided prompt says so, only to the user.
    expect((await h.post('/api/actions', { message: asked.id, actionId: approve.actionId, value: approve.value })).status).toBe(202);
    await h.waitFor(() => h.ephemerals.some((ephemeral) => /already decided/.test(ephemeral.text) && ephemeral.thread === root));
  });

  it('a finished reply carries the second-opinion menus; "Re-run as Spock" through /api/actions answers the same request as Spock', async () => {
    const h = app();
    h.model.enqueue({ text: 'Use a B-tree index.' });
    const root = await h.say('geordi which index fits range queries?');
    const answered = () => h.thread(root).find((message) => message.text.includes('B-tree') && (message.menus?.length ?? 0) > 0);
    await h.waitFor(() => answered() !== undefined);
    const reply = answered()!;
    expect(reply.buttons).toEqual([]);
    expect(reply.menus!.map((menu) => menu.label)).toEqual(['Ask another character…', 'Re-run…']);
    const rerun = reply.menus![1]!;
    expect(rerun.options.map((option) => option.label)).toContain('Re-run as Spock');
    // A choice that was never offered on this message is refused, as a forged button is.
    expect((await h.post('/api/actions', { message: reply.id, actionId: rerun.actionId, value: rerun.value, choice: 'rerun:nobody' })).status).toBe(409);
    expect((await h.post('/api/actions', { message: reply.id, actionId: rerun.actionId, value: rerun.value })).status).toBe(409);
    const before = h.model.requests.length;
    h.model.enqueue({ text: 'Spock: a B-tree, logically.' });
    expect((await h.post('/api/actions', { message: reply.id, actionId: rerun.actionId, value: rerun.value, choice: 'rerun:spock' })).status).toBe(202);
    await h.waitFor(() => h.thread(root).some((message) => message.text.includes('Spock: a B-tree') && settled(message)));
    expect(h.thread(root).find((message) => message.text.includes('Spock: a B-tree'))!.author.name).toBe('Spock');
    const request = h.model.requests[before]!.body as { messages: { role: string; content: string }[] };
    expect(request.messages.at(-1)!.content).toContain('which index fits range queries?');
    expect(request.messages.some((message) => message.content.includes('Use a B-tree index.'))).toBe(false);
  });

  it('answers slash commands with ephemerals, continues a thread, and offers uploaded files for download', async () => {
    const h = app();
    expect((await h.post('/api/messages', { channel: h.channel, text: '/tsuka help' })).status).toBe(202);
    await h.waitFor(() => h.ephemerals.some((ephemeral) => ephemeral.text.includes('/call spock worf') && ephemeral.html.includes('<code>')));
    await h.post('/api/messages', { channel: h.channel, text: '/nope' });
    await h.waitFor(() => h.ephemerals.some((ephemeral) => /Unknown command/.test(ephemeral.text)));

    h.model.enqueue({ text: 'First answer.' });
    const root = await h.say('spock what is BM25?');
    await h.waitFor(() => h.thread(root).some((message) => message.text.includes('First answer.') && settled(message)));
    h.model.enqueue({ text: 'Second answer.' });
    await h.say('and how does it rank?', root);
    await h.waitFor(() => h.thread(root).some((message) => message.text.includes('Second answer.') && settled(message)));
    expect(
      h
        .thread(root)
        .filter((message) => message.author.kind === 'character')
        .every((message) => message.author.name === 'Spock'),
    ).toBe(true);
    expect((h.model.requests[1]!.body as { messages: { content: string }[] }).messages.at(-1)!.content).toBe('and how does it rank?');

    await h.post('/api/messages', { channel: h.channel, text: '/tsuka export' });
    await h.waitFor(() => h.files.length === 1);
    const download = await h.get(`/api/files?id=${h.files[0]!.id}`);
    expect(download.headers.get('content-disposition')).toMatch(/^attachment; filename=".+\.md"$/);
    // The latest run in the channel: the follow-up turn.
    expect(await download.text()).toContain('Second answer.');
  });

  it('refuses foreign Host headers, non-JSON and cross-origin posts, and bad input', async () => {
    const h = app();
    const json = { 'content-type': 'application/json' };
    const body = JSON.stringify({ channel: h.channel, text: '/tsuka help' });
    expect((await h.raw({ method: 'GET', path: '/', host: `localhost:${h.port}` })).status).toBe(200);
    expect((await h.raw({ method: 'GET', path: '/', host: `attacker.example:${h.port}` })).status).toBe(403);
    expect((await h.raw({ method: 'GET', path: '/api/state', host: 'attacker.example' })).status).toBe(403);
    expect((await h.raw({ method: 'POST', path: '/api/messages', host: `rebind.attacker.example:${h.port}`, headers: json, body })).status).toBe(403);
    expect((await h.raw({ method: 'POST', path: '/api/messages', host: `127.0.0.1:${h.port}`, headers: { 'content-type': 'text/plain' }, body })).status).toBe(
      415,
    );
    expect(
      (
        await h.raw({
          method: 'POST',
          path: '/api/messages',
          host: `127.0.0.1:${h.port}`,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'text=hi',
        })
      ).status,
    ).toBe(415);
    expect(
      (await h.raw({ method: 'POST', path: '/api/messages', host: `127.0.0.1:${h.port}`, headers: { ...json, origin: 'https://attacker.example' }, body }))
        .status,
    ).toBe(403);
    expect((await h.raw({ method: 'POST', path: '/api/messages', host: `127.0.0.1:${h.port}`, headers: json, body: '{not json' })).status).toBe(400);
    expect((await h.post('/api/messages', { channel: 'nowhere', text: 'hi' })).status).toBe(404);
    expect((await h.post('/api/messages', { channel: h.channel, text: '   ' })).status).toBe(400);
    expect((await h.post('/api/actions', { message: 'm-none', actionId: 'tsuka_approve', value: 'x' })).status).toBe(404);
    // None of the refused requests reached the command layer.
    expect(h.ephemerals).toEqual([]);
    expect(h.model.requests).toEqual([]);
  });

  it('renders what people and models write as text, never as markup', async () => {
    const h = app();
    h.model.enqueue({ text: 'Echo: <script>alert(1)</script> and [x](javascript:alert(1)) and **bold** and `<b>code</b>`' });
    const root = await h.say('geordi <img src=x onerror=alert(1)>');
    await h.waitFor(() => h.thread(root).some((message) => message.text.includes('Echo:') && settled(message)));
    const mine = h.messages.get(root)!;
    expect(mine.html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(mine.html).not.toMatch(/<img/i);
    const answer = h.thread(root).find((message) => message.text.includes('Echo:'))!;
    expect(answer.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(answer.html).not.toMatch(/<script|href="javascript/i);
    expect(answer.html).toContain('<strong>bold</strong>');
    expect(answer.html).toContain('<code>&lt;b&gt;code&lt;/b&gt;</code>');
  });

  it('reports the model status for the page banner, with the commands to start a server when none answers', async () => {
    expect(await (await app().get('/api/status')).json()).toEqual({ ok: true, message: expect.stringContaining('qwen2.5-coder:7b') });
    own = await startPlaygroundHarness({ withModel: false });
    const status = (await (await own.get('/api/status')).json()) as { ok: boolean; message: string };
    expect(status.ok).toBe(false);
    expect(status.message).toMatch(/ollama serve/);
    expect(status.message).toMatch(/llama-server/);
    expect(status.message).toMatch(/lms server start/);
    expect(status.message).toMatch(/TSUKA_LLM_BASE_URL/);
  });
});

describe('the model banner', () => {
  it('clears on the live channel when a model server comes up, without a reload', async () => {
    // A door in front of the scripted model: shut (503, as a server still loading) until opened.
    let open = false;
    const model = await import('../../support/scripted-model-server.js').then(({ startScriptedModelServer }) =>
      startScriptedModelServer({ modelId: 'qwen2.5-coder:7b' }),
    );
    const target = new URL(model.baseURL);
    const { createServer, request } = await import('node:http');
    const door = createServer((incoming, outgoing) => {
      if (!open) return void outgoing.writeHead(503).end('loading');
      const forward = request(
        { host: target.hostname, port: target.port, path: incoming.url, method: incoming.method, headers: incoming.headers },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      incoming.pipe(forward);
    });
    await new Promise<void>((resolve) => door.listen(0, '127.0.0.1', resolve));
    const port = (door.address() as { port: number }).port;
    try {
      own = await startPlaygroundHarness({ modelBaseURL: `http://127.0.0.1:${port}${target.pathname}`, modelProbeIntervalMs: 100 });
      const h = own;
      expect((await (await h.get('/api/status')).json()) as { ok: boolean }).toMatchObject({ ok: false });
      open = true;
      await h.waitFor(() => h.modelStates.some((state) => state.ok));
      expect(h.modelStates.at(-1)).toMatchObject({ ok: true, message: expect.stringContaining('qwen2.5-coder:7b') });
    } finally {
      door.close();
      await model.close();
    }
  });
});
