/**
 * Issue 28: a conflict between parallel /goal branches goes to the goal's supervisor, who proposes
 * a merged file; the write asks like any write (the card shows the diff). Approve leaves the merged
 * file; Deny keeps today's behaviour (the workspace's file untouched, the versions saved).
 */
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { APPROVE_ACTION, DENY_ACTION } from '../../../../src/commands/approvals/approval-flow.js';
import { callTool, say } from '../../../../src/core/model/scripted-model.js';
import { extractMergedFile } from '../../../../src/core/workflows/goal/conflict-versions.js';
import { lastUserOf } from '../../../support/scripted-callers.js';
import { startWorkflowHarness } from '../workflow-harness.js';
import { goalModelSteps, type GoalScript } from './goal-script.js';

type Harness = Awaited<ReturnType<typeof startWorkflowHarness>>;
let harness: Harness | undefined;
afterEach(async () => {
  await harness?.stop();
  harness = undefined;
});

const MERGED = 'line one\ngeordi was here\ndata was here\n';

function script(): GoalScript {
  return {
    plan: [say('PARALLEL:\nAGENT: @geordi — Add a line\nAGENT: @data — Add a line\nEND PARALLEL\nAGENT: @pike — Sign off\nEND')],
    'step:1': [callTool('write_file', { path: 'shared.txt', content: 'line one\ngeordi was here\n' }), say('Added.\nSTATUS: COMPLETED — added')],
    'step:2': [callTool('write_file', { path: 'shared.txt', content: 'line one\ndata was here\n' }), say('Added.\nSTATUS: COMPLETED — added')],
    'merge:shared.txt': [
      (request) => {
        const asked = lastUserOf(request as never);
        const sawAll = asked.includes('line one') && asked.includes('geordi was here') && asked.includes('data was here');
        return say(sawAll ? `Kept both lines.\n\`\`\`\n${MERGED}\`\`\`` : 'I did not get the versions.');
      },
    ],
    'review:1': [say('VOTE: APPROVE — fine')],
    'review:2': [say('VOTE: APPROVE — fine')],
    'step:3': [say('Signed off.\nSTATUS: COMPLETED — signed')],
  };
}

async function decide(h: Harness, count: number, last: 'approve' | 'deny'): Promise<string[]> {
  const decided = new Set<string>();
  const asked: string[] = [];
  const pending = () => h.surface.messages.find((message) => !decided.has(message.ref) && message.buttons.some((button) => button.actionId === APPROVE_ACTION));
  for (let index = 0; index < count; index++) {
    await h.surface.waitFor(() => pending() !== undefined);
    const prompt = pending()!;
    decided.add(prompt.ref);
    asked.push(prompt.text);
    const action = index === count - 1 && last === 'deny' ? DENY_ACTION : APPROVE_ACTION;
    await h.click(action, prompt.buttons.find((button) => button.actionId === action)!.value, prompt.ref);
  }
  return asked;
}

async function start(given: GoalScript = script()): Promise<Harness> {
  harness = await startWorkflowHarness({ steps: goalModelSteps(given) });
  await mkdir(harness.engine.workspace.root, { recursive: true });
  await writeFile(path.join(harness.engine.workspace.root, 'shared.txt'), 'line one\n');
  return harness;
}

describe('/goal conflicts resolved by a character', () => {
  it('reads the merged file from the last fenced block', () => {
    expect(extractMergedFile('Merged.\n```ts\nconst a = 1;\n```')).toBe('const a = 1;\n');
    expect(extractMergedFile('````md\n# T\n```js\nx\n```\n````')).toBe('# T\n```js\nx\n```\n');
    expect(extractMergedFile('no block')).toBeUndefined();
  });

  it('the supervisor proposes a merge, the approval card shows the diff, and once approved the merged file is there', async () => {
    const h = await start();
    const running = h.slash('goal', 'both add a line');
    const prompts = await decide(h, 3, 'approve');
    await running;
    const mergePrompt = prompts[2]!;
    expect(mergePrompt).toContain('**pike** wants to run `write_file`');
    expect(mergePrompt).toContain('```diff');
    expect(mergePrompt).toContain('+ geordi was here');
    expect(mergePrompt).toContain('+ data was here');
    expect(await readFile(path.join(h.engine.workspace.root, 'shared.txt'), 'utf8')).toBe(MERGED);
    const thread = h.thread().map((message) => `${message.identity?.name ?? 'bot'}: ${message.text}`);
    expect(thread.find((line) => line.startsWith('Pike: Kept both lines.'))).toBeDefined();
    expect(thread).toContain("bot: 🔀 shared.txt: Pike's merge written.");
    // Pike's merge turn counts in the goal's stats (with the reviews and its own step).
    const [run] = await h.runs();
    // Four Pike turns of 100 prompt tokens each (the scripted model's): two reviews, the merge and its own step.
    expect(run!.stats!['pike.totalTokens']).toBeGreaterThan(400);
    expect(run!.stats!['pike.totalTokens']).toBeLessThan(500);
    const final = thread.at(-1)!;
    expect(final).toMatch(/\npike\s+\d+/);
  });

  it("Deny keeps today's behaviour: the workspace file untouched and every version saved", async () => {
    const h = await start();
    const running = h.slash('goal', 'both add a line');
    await decide(h, 3, 'deny');
    await running;
    expect(await readFile(path.join(h.engine.workspace.root, 'shared.txt'), 'utf8')).toBe('line one\n');
    expect(await readdir(path.join(h.engine.workspace.root, '.tsuka', 'conflicts'))).toHaveLength(2);
    expect(
      h.thread().some((message) => /🔀 shared\.txt: Pike's merge was not written \(.*\); the conflict stays saved in \.tsuka\/conflicts\//.test(message.text)),
    ).toBe(true);
  });

  it('issue 35: a plan without a supervisor still gets a merge, proposed by TSUKA, not only a file in .tsuka/conflicts', async () => {
    const noSupervisor: GoalScript = {
      plan: [say('PARALLEL:\nAGENT: @geordi — Add a line\nAGENT: @data — Add a line\nEND PARALLEL\nEND')],
      'step:1': script()['step:1']!,
      'step:2': script()['step:2']!,
      // A model that does not follow the format to the letter: chatter around the block.
      'merge:shared.txt': [say(`Sure! Here you go:\n\n\`\`\`text\n${MERGED}\`\`\``)],
    };
    const h = await start(noSupervisor);
    const running = h.slash('goal', 'both add a line');
    const prompts = await decide(h, 3, 'approve');
    await running;
    expect(prompts[2]).toContain('**tsuka** wants to run `write_file`');
    expect(await readFile(path.join(h.engine.workspace.root, 'shared.txt'), 'utf8')).toBe(MERGED);
    const thread = h.thread().map((message) => `${message.identity?.name ?? 'bot'}: ${message.text}`);
    expect(thread).toContain("bot: 🔀 shared.txt: TSUKA's merge written.");
  });
});
