import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createReplyRenderer } from '../../../src/commands/reply/reply-renderer.js';
import { createMemorySurface } from '../../support/memory-surface.js';
import type { ToolCall } from '../../../src/core/model/language-model.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('reply renderer', () => {
  it('coalesces a fast stream to at most one edit per interval, and the last edit holds everything', async () => {
    const surface = createMemorySurface({ editIntervalMs: 1000 });
    const renderer = createReplyRenderer({ surface, thread: 't', identity: { name: 'Geordi', avatar: ':wrench:' } });
    await renderer.start();
    const words: string[] = [];
    for (let index = 0; index < 50; index++) {
      const word = `word${index} `;
      words.push(word);
      renderer.handle({ type: 'text-delta', text: word });
      await vi.advanceTimersByTimeAsync(100);
    }
    await renderer.finish();
    const [message] = surface.messages;
    // 5 s of streaming at one edit per second: about 5 edits plus the final one, never one per delta.
    expect(message!.edits).toBeGreaterThanOrEqual(3);
    expect(message!.edits).toBeLessThanOrEqual(7);
    expect(message!.text).toBe(words.join(''));
    expect(message!.identity).toEqual({ name: 'Geordi', avatar: ':wrench:' });
  });

  it('shows a thinking status while the model reasons, and compact tool lines in order', async () => {
    const surface = createMemorySurface({ editIntervalMs: 100 });
    const renderer = createReplyRenderer({
      surface,
      thread: 't',
      runningButtons: [{ actionId: 'tsuka_stop', label: 'Stop', style: 'secondary', value: 'run-1' }],
    });
    await renderer.start();
    renderer.handle({ type: 'reasoning-delta', text: 'hmm' });
    await vi.advanceTimersByTimeAsync(2500);
    expect(surface.messages[0]!.text).toMatch(/💭 thinking… \d+ s/);
    expect(surface.messages[0]!.buttons.map((button) => button.label)).toEqual(['Stop']);
    const call: ToolCall = { id: 'c1', name: 'read_file', arguments: '{"path":"src/app.ts"}' };
    renderer.handle({ type: 'tool-call-started', toolCall: call, summary: 'read_file src/app.ts', riskLevel: 'SAFE' });
    renderer.handle({
      type: 'tool-call-finished',
      toolCall: call,
      summary: 'read_file src/app.ts',
      outcome: 'ok',
      display: '1.2 KB',
      output: 'export const app = 1;',
      durationMs: 3,
    });
    renderer.handle({ type: 'text-delta', text: 'The app starts here.' });
    await renderer.finish();
    expect(surface.messages[0]!.text).toBe('🔧 read_file src/app.ts — 1.2 KB\nThe app starts here.');
    expect(surface.messages[0]!.buttons).toEqual([]);
  });

  it('continues in new messages past the limit, each part within it', async () => {
    const surface = createMemorySurface({ maxMessageLength: 200, editIntervalMs: 10 });
    const renderer = createReplyRenderer({ surface, thread: 't' });
    await renderer.start();
    for (let index = 0; index < 40; index++) {
      renderer.handle({ type: 'text-delta', text: `Line number ${index} of the reply.\n` });
      await vi.advanceTimersByTimeAsync(20);
    }
    await renderer.finish();
    expect(surface.messages.length).toBeGreaterThan(3);
    for (const message of surface.messages) expect(message.text.length).toBeLessThanOrEqual(200);
    const all = surface.messages.map((message) => message.text).join('\n');
    for (let index = 0; index < 40; index++) expect(all).toContain(`Line number ${index} of the reply.`);
  });

  it('ends the message above an approval card and streams the rest below it, Stop included (issue 24: the order of events)', async () => {
    const surface = createMemorySurface({ editIntervalMs: 100 });
    const stop = { actionId: 'tsuka_stop', label: 'Stop', style: 'secondary' as const, value: 'run-1' };
    const renderer = createReplyRenderer({ surface, thread: 't', runningButtons: [stop] });
    await renderer.start();
    renderer.handle({ type: 'text-delta', text: 'I will write it.' });
    const call: ToolCall = { id: 'c1', name: 'write_file', arguments: '{"path":"approved.txt"}' };
    renderer.handle({ type: 'tool-call-started', toolCall: call, summary: 'write_file approved.txt', riskLevel: 'RESTRICTED' });
    expect(renderer.hasTool('c1')).toBe(true);
    await renderer.aroundCard({ toolCallId: 'c1', toolName: 'write_file' }, () => surface.post({ thread: 't', text: 'CARD' }));
    await vi.advanceTimersByTimeAsync(200);
    expect(surface.messages.map((message) => message.text.split('\n')[0])).toEqual(['I will write it.', 'CARD', '🔧 write_file approved.txt …']);
    expect(surface.messages[0]!.text).toBe('I will write it.\n🔐 write_file approved.txt — asks for approval\n');
    expect(surface.messages[0]!.buttons).toEqual([]);
    expect(surface.messages[2]!.buttons).toEqual([stop]);
    renderer.handle({
      type: 'tool-call-finished',
      toolCall: call,
      summary: 'write_file approved.txt',
      outcome: 'ok',
      display: 'Created approved.txt',
      output: 'ok',
      durationMs: 1,
    });
    renderer.handle({ type: 'text-delta', text: 'Written, and more to say. ' });
    await vi.advanceTimersByTimeAsync(200);
    // Streams below the card while the turn runs (not only at its end).
    expect(surface.messages[2]!.text).toContain('🔧 write_file approved.txt — Created approved.txt\nWritten, and more to say.');
    await renderer.finish();
    expect(surface.messages).toHaveLength(3);
    expect(surface.messages[2]!.text).toBe('🔧 write_file approved.txt — Created approved.txt\nWritten, and more to say. ');
    expect(surface.messages[2]!.buttons).toEqual([]);
  });
});
