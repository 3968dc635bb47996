/** /call and /goal in the playground, driven through its HTTP API and watched on its event stream. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ScriptedReplySpec } from '../../support/scripted-model-server.js';
import { callerOf } from '../../support/scripted-callers.js';
import { sharedPlaygroundHarness, type PlaygroundHarness } from './playground-harness.js';

type Body = { messages: { role: string; content: string }[] };
const lastUser = (body: unknown): string => [...(body as Body).messages].reverse().find((message) => message.role === 'user')?.content ?? '';

/** The run's root message in the test's channel, once posted. */
async function rootOf(h: PlaygroundHarness, prefix: string): Promise<string> {
  const find = () =>
    [...h.messages.values()].find((message) => message.channel === h.channel && message.thread === undefined && message.text.startsWith(prefix));
  await h.waitFor(() => find() !== undefined);
  return find()!.id;
}

/** Every message of the thread but the run card, as [author, text]. */
function transcript(h: PlaygroundHarness, root: string) {
  const messages = h.thread(root);
  const card = messages.find((message) => message.text.startsWith('🛰'));
  return {
    card,
    lines: messages
      .filter((message) => message !== card)
      .map((message) => [message.author.kind === 'character' ? message.author.name : 'bot', message.text.trim()] as const),
  };
}

describe('playground workflows', () => {
  const app = sharedPlaygroundHarness();
  it("/call: the debate in the root message's thread, each turn under its character, then the synthesis", async () => {
    const h = app();
    const speaker = (body: unknown) =>
      /You are (\w+) in a debate/.exec(lastUser(body))?.[1] ?? /As (\w+), write the closing synthesis/.exec(lastUser(body))?.[1] ?? '?';
    h.model.enqueue((body) => ({ text: `${speaker(body)}: tabs.` }));
    h.model.enqueue((body) => ({ text: `${speaker(body)}: ${lastUser(body).includes('Worf: tabs.') ? 'I read Worf; spaces.' : 'no transcript'}` }));
    h.model.enqueue((body) => ({ text: `${speaker(body)} sums up: follow the formatter.` }));
    expect((await h.post('/api/messages', { channel: h.channel, text: '/call worf spock "Tabs or spaces?" rounds=1' })).status).toBe(202);
    const root = await rootOf(h, '📞');
    expect(h.messages.get(root)!.text).toContain('Tabs or spaces? — Worf, Spock · 1 round');
    await h.waitFor(() => transcript(h, root).lines.some(([, text]) => text.includes('Verdict')));
    const { card, lines } = transcript(h, root);
    expect(lines).toEqual([
      ['bot', '— Round 1 of 1 —'],
      ['Worf', 'Worf: tabs.'],
      ['Spock', 'Spock: I read Worf; spaces.'],
      // No supervisor among the participants: TSUKA moderates (issue 28), then the verdict card.
      ['bot', '— Synthesis by TSUKA —'],
      ['TSUKA', 'TSUKA sums up: follow the formatter.'],
      ['bot', expect.stringContaining('✅ Call finished.')],
      ['bot', expect.stringContaining('Verdict')],
    ]);
    expect(card!.text).toContain('finished');
    expect(card!.buttons).toEqual([]);
  });

  it('/goal: the plan, no review when it names no supervisor, a step that writes a file after Approve, and the stats table', async () => {
    const h = app();
    const script: Record<string, ScriptedReplySpec[]> = {
      plan: [{ text: '**AGENT:** @geordi — Write hello.txt\nEND' }],
      'step:1': [
        { toolCalls: [{ name: 'write_file', arguments: { path: 'hello.txt', content: 'hello\n' } }] },
        { text: 'Wrote hello.txt.\nSTATUS: COMPLETED — hello written' },
      ],
    };
    for (let index = 0; index < 3; index++)
      h.model.enqueue((body) => script[callerOf(body as never)]?.shift() ?? { text: `(nothing scripted for ${callerOf(body as never)})` });
    expect((await h.post('/api/messages', { channel: h.channel, text: '/goal say hello in a file' })).status).toBe(202);
    const root = await rootOf(h, '🎯');
    expect(h.messages.get(root)!.text).toBe('🎯 Goal by @you: say hello in a file');
    const prompt = () => h.thread(root).find((message) => message.buttons.some((button) => button.actionId === 'tsuka_approve'));
    await h.waitFor(() => prompt() !== undefined);
    const approve = prompt()!.buttons.find((button) => button.actionId === 'tsuka_approve')!;
    expect((await h.post('/api/actions', { message: prompt()!.id, actionId: approve.actionId, value: approve.value })).status).toBe(202);
    await h.waitFor(() => transcript(h, root).lines.some(([, text]) => text.includes('Goal completed')));

    expect(await readFile(path.join(h.workspace, 'hello.txt'), 'utf8')).toBe('hello\n');
    const { card, lines } = transcript(h, root);
    // The plan names no supervisor: the roster's Pike reviews nothing, the thread says so once.
    // Geordi's reply ends above the approval card it asked for and goes on below it (issue 24: the order of events).
    expect(lines.map(([author]) => author)).toEqual(['bot', 'bot', 'Geordi', 'bot', 'Geordi', 'bot']);
    expect(lines[0]![1]).toBe('📋 Plan (1 step):\n1. @geordi — Write hello.txt');
    expect(lines[1]![1]).toBe('no review: the plan names no supervisor');
    expect(lines[2]![1]).toBe('🔐 write_file hello.txt — asks for approval');
    expect(lines[3]![1]).toMatch(/Approved by @you/);
    expect(lines[4]![1]).toMatch(/^🔧 write_file hello\.txt — /);
    expect(lines[4]![1]).toContain('step done — step 1: hello written');
    expect(lines[5]![1]).toMatch(/^✅ Goal completed\.\n1 step\(s\) done\n```/);
    expect(lines[5]![1]).toMatch(/\ngeordi\s+\d[\s\S]*\ntotal\s+\d/);
    expect(lines[5]![1]).not.toMatch(/\npike\s/);
    expect(h.model.requests.map((request) => callerOf(request.body as never)).filter((caller) => caller.startsWith('review'))).toEqual([]);
    // The closing stats as an SVG picture the page shows inline, with its words as alt text.
    await h.waitFor(() => h.files.some((file) => file.fileName === 'goal-stats.svg'));
    const chart = h.files.find((file) => file.fileName === 'goal-stats.svg')!;
    expect(chart.image?.altText).toMatch(/geordi: \d[\d,]* output tokens/);
    const picture = await h.get(`/api/files?id=${encodeURIComponent(chart.id)}&view=image`);
    expect(picture.headers.get('content-type')).toBe('image/svg+xml');
    expect(await picture.text()).toMatch(/^<svg[\s\S]*>geordi<[\s\S]*<\/svg>$/);
    expect(card!.buttons).toEqual([]);
  });
});
