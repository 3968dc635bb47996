/**
 * Issue 35 (c), in the default set-up (`default-slack.ts`): a /goal is midway — step 1 done, its
 * parallel group running: step 3 finished in its staging copy, step 2 waiting for its approval —
 * when the app restarts (a graceful stop and a new start on the same data folder, as a deploy
 * does). Resume finishes it: step 3's finished copy is merged without asking its agent again,
 * step 2 runs again from its start, and both files land in the workspace.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedReplySpec } from '../../support/scripted-model-server.js';
import { buttonsOf, type SlackHarness } from '../slack/slack-harness.js';
import { callers, click, expectDefaultSandbox, type Message, scriptGoal, startDefaultSlackHarness, startGoal, waitForButton } from './default-slack.js';

let h: SlackHarness;
beforeAll(async () => {
  h = await startDefaultSlackHarness();
}, 30_000);
afterAll(async () => {
  await h?.stop();
});

const write = (file: string, content: string) => ({ toolCalls: [{ name: 'write_file', arguments: { path: file, content } }] });
const approvals = (root: Message) => h.botReplies('C3', root.ts).filter((message) => buttonsOf(message).some((button) => button.action_id === 'tsuka_approve'));

/** A step that writes its file, then (once the write's result is in the turn) says it is done. */
function writer(file: string, content: string, done: string): (body: unknown) => ScriptedReplySpec {
  return (body) => {
    const wrote = (body as { messages: { role: string }[] }).messages.at(-1)?.role === 'tool';
    return wrote ? { text: `${done}.\nSTATUS: COMPLETED — ${done}` } : write(file, content);
  };
}

describe('default set-up: a restart midway through a /goal', () => {
  it('leaves a Resume button; Resume merges the branch that had finished and runs the unfinished one again, and the goal completes', async () => {
    expectDefaultSandbox(h);
    const files: Record<string, { step: number; content: string }> = {
      'notes.md': { step: 2, content: '# Notes\n' },
      'audit.md': { step: 3, content: '# Audit\nclean\n' },
    };
    // Each step may be asked up to three times (a write, the write again after Resume, its end).
    scriptGoal(h, {
      plan: [{ text: 'AGENT: @geordi — Outline the notes\nPARALLEL:\nAGENT: @data — Write notes.md\nAGENT: @obrien — Write audit.md\nEND PARALLEL\nEND' }],
      'step:1': [{ text: 'Outlined.\nSTATUS: COMPLETED — outlined' }],
      'step:2': Array.from({ length: 3 }, () => writer('notes.md', files['notes.md']!.content, 'Wrote notes.md')),
      'step:3': Array.from({ length: 3 }, () => writer('audit.md', files['audit.md']!.content, 'Wrote audit.md')),
    });
    const root = await startGoal(h, 'C3', 'write the notes and their audit');
    await click(h, 'C3', await waitForButton(h, 'C3', root, 'tsuka_plan_run'), 'tsuka_plan_run');

    // Both branches write; approvals are asked one at a time. The first is approved and its step
    // finishes in its copy; the other's is pending when the app restarts.
    await h.slack.waitFor(() => approvals(root).length >= 1, { timeoutMs: 20_000 });
    const firstPrompt = approvals(root)[0]!;
    const first = Object.keys(files).find((file) => firstPrompt.text.includes(file))!;
    const second = Object.keys(files).find((file) => file !== first)!;
    await click(h, 'C3', firstPrompt, 'tsuka_approve');
    await h.slack.waitFor(() => h.botReplies('C3', root.ts).some((message) => message.text.includes(`step done — step ${files[first]!.step}`)), {
      timeoutMs: 20_000,
    });
    await h.slack.waitFor(() => approvals(root).some((message) => message.text.includes(second)), { timeoutMs: 20_000 });
    const pendingPrompt = approvals(root).find((message) => message.text.includes(second))!;
    const asked = (step: number) => callers(h).filter((caller) => caller === `step:${step}`).length;
    expect([callers(h).filter((caller) => caller === 'plan').length, asked(1), asked(files[first]!.step), asked(files[second]!.step)]).toEqual([1, 1, 2, 1]);

    await h.restartApp();
    const resume = await waitForButton(h, 'C3', root, 'tsuka_resume');
    expect(h.botReplies('C3', root.ts).find((message) => message.ts === pendingPrompt.ts)?.text).toMatch(/expired/i);
    await click(h, 'C3', resume, 'tsuka_resume');
    const isNew = (message: Message) => message.ts !== pendingPrompt.ts && message.ts !== firstPrompt.ts;
    await h.slack.waitFor(() => approvals(root).some(isNew), { timeoutMs: 20_000 });
    const again = approvals(root).find(isNew)!;
    expect(again.text).toContain(second);
    await click(h, 'C3', again, 'tsuka_approve');
    await h.slack.waitFor(() => h.botReplies('C3', root.ts).some((message) => message.text.includes('Goal completed')), { timeoutMs: 30_000 });

    // Step 1 and the finished branch were not asked again; the pending one ran again from its start.
    expect([callers(h).filter((caller) => caller === 'plan').length, asked(1), asked(files[first]!.step), asked(files[second]!.step)]).toEqual([1, 1, 2, 3]);
    for (const [file, { content }] of Object.entries(files)) expect(await readFile(path.join(h.workspace, file), 'utf8')).toBe(content);
    const thread = h.botReplies('C3', root.ts).map((message) => message.text);
    expect(thread.some((text) => /🔀 Merged 2 change\(s\): audit\.md, notes\.md/.test(text))).toBe(true);
    expect(thread.find((text) => text.startsWith('✅ Goal completed'))).toMatch(/3 step\(s\) done · 1 merge\(s\), 0 conflict\(s\)/);
    const run = (await h.app.engine.runs.list()).find((record) => record.where.threadId?.endsWith(root.ts));
    expect(run?.status).toBe('completed');
  }, 90_000);
});
