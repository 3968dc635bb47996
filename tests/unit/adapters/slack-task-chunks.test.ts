/** Task cards (issue 24): chunk shapes as Slack documents them, their place between the text, the text fallback, and masking. */
import { describe, expect, it } from 'vitest';
import { createTaskQueue, refusedChunks, taskChunk } from '../../../src/adapters/slack/task-chunks.js';
import { escapeSlackText } from '../../../src/adapters/slack/markdown.js';
import { taskSources } from '../../../src/commands/reply/task-sources.js';
import { createMaskingSurface } from '../../../src/commands/masking-surface.js';
import type { ChatSurface, ReplyStream, TaskUpdate } from '../../../src/commands/chat-surface.js';

const md = escapeSlackText;

describe('task_update chunks', () => {
  it('always gives a source its text, drops what is not a web address, and keeps titles to one line', () => {
    const chunk = taskChunk({
      id: 't1',
      title: `browse_url ${'x'.repeat(400)}`,
      status: 'complete',
      output: '12 KB',
      sources: [
        { url: 'https://example.com/a', text: '' },
        { url: 'file:///etc/passwd', text: 'local' },
      ],
    }) as { title: string; sources: { type: string; url: string; text: string }[] };
    expect(chunk.sources).toEqual([{ type: 'url', url: 'https://example.com/a', text: 'https://example.com/a' }]);
    expect(chunk.title.length).toBeLessThanOrEqual(150);
  });

  it('names the page browse_url opened and the results web_search listed as sources', () => {
    expect(taskSources('browse_url', JSON.stringify({ url: 'https://docs.example.com/guide/' }), 'page text')).toEqual([
      { url: 'https://docs.example.com/guide/', text: 'docs.example.com/guide/' },
    ]);
    const output =
      'Results for "bm25":\n1. Okapi BM25\n   https://en.wikipedia.org/wiki/Okapi_BM25\n   ranking\n2. BM25 explained\n   https://example.com/bm25';
    expect(taskSources('web_search', '{"query":"bm25"}', output)).toEqual([
      { url: 'https://en.wikipedia.org/wiki/Okapi_BM25', text: 'Okapi BM25' },
      { url: 'https://example.com/bm25', text: 'BM25 explained' },
    ]);
    expect(taskSources('read_file', '{"path":"a"}', 'https://example.com in a file')).toBeUndefined();
    expect(taskSources('browse_url', 'not json', '')).toBeUndefined();
  });

  it('puts each task after the text given before it, and the text after it behind', () => {
    const queue = createTaskQueue();
    const first = 'Let me look.\n';
    queue.add({ id: 't1', title: 'read_file a.json', status: 'in_progress' }, first.length);
    const whole = `${first}Found <it>.`;
    const content = queue.content({ whole, shown: '', markdown: md, asChunks: true, starting: true });
    expect(content.fields).toEqual({
      chunks: [
        { type: 'markdown_text', text: 'Let me look.\n' },
        { type: 'task_update', id: 't1', title: 'read_file a.json', status: 'in_progress' },
        { type: 'markdown_text', text: 'Found &lt;it&gt;.' },
      ],
      task_display_mode: 'timeline',
    });
    // Nothing waits any more: plain text goes as markdown_text, as before task cards.
    expect(queue.content({ whole: `${whole} More.`, shown: md(whole), markdown: md, asChunks: true, starting: false }).fields).toEqual({
      markdown_text: ' More.',
    });
  });

  it('a plan starts with its title and the plan display mode', () => {
    const queue = createTaskQueue();
    queue.add({ id: 's1', title: 'step 1/2 · Geordi', status: 'in_progress' }, 0);
    expect(queue.content({ whole: '', shown: '', markdown: md, asChunks: true, starting: true, planTitle: 'Ship it' }).fields).toEqual({
      chunks: [
        { type: 'plan_update', title: 'Ship it' },
        { type: 'task_update', id: 's1', title: 'step 1/2 · Geordi', status: 'in_progress' },
      ],
      task_display_mode: 'plan',
    });
  });

  it('where tasks are text, a finished task is its line at its place; a running one shows nothing', () => {
    const queue = createTaskQueue();
    queue.add({ id: 't1', title: 'read_file a.json', status: 'in_progress' }, 'Checking.\n'.length);
    queue.add({ id: 't1', title: 'read_file a.json', status: 'complete', line: '🔧 read_file a.json — 1 KB' }, 'Checking.\n'.length);
    const content = queue.content({ whole: 'Checking.\nDone.', shown: '', markdown: md, asChunks: false, starting: true });
    expect(content.fields).toEqual({ markdown_text: 'Checking.\n🔧 read_file a.json — 1 KB\nDone.' });
    // A placeholder edited in place keeps the line in every edit.
    const edited = createTaskQueue();
    edited.addLine({ id: 't1', title: 'x', status: 'error', line: '⚠️ x — exit 1' }, 'Before.\n'.length);
    expect(edited.compose('Before.\nAfter.')).toBe('Before.\n⚠️ x — exit 1\nAfter.');
  });

  it('takes a Slack error on a call with task cards for a refusal, but not the end of the stream or a limit', () => {
    expect(refusedChunks({ data: { error: 'invalid_chunks' } })).toBe('invalid_chunks');
    expect(refusedChunks({ data: { error: 'message_not_in_streaming_state' } })).toBeUndefined();
    expect(refusedChunks({ code: 'ECONNRESET' })).toBeUndefined();
  });

  it('masks secrets in every text of a task before it leaves', () => {
    const shown: TaskUpdate[] = [];
    const stream: ReplyStream = {
      append: () => undefined,
      status: () => undefined,
      stop: async () => undefined,
      tasks: true,
      task: (update) => shown.push(update),
    };
    const surface = { startStream: () => stream } as unknown as ChatSurface;
    const masked = createMaskingSurface(surface, (text) => text.replaceAll('hunter2', '[secret]'));
    const live = masked.startStream!({ thread: 't' });
    expect(live.tasks).toBe(true);
    live.task!({
      id: 't1',
      title: 'execute_command echo hunter2',
      status: 'complete',
      output: 'hunter2',
      details: 'hunter2',
      line: '🔧 hunter2',
      sources: [{ url: 'https://x.test/?k=hunter2', text: 'hunter2' }],
    });
    expect(JSON.stringify(shown)).not.toContain('hunter2');
  });
});
