/** What an approval shows: the new file's content or the change as a diff block, and when it expires. */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApprovalFlow } from '../../../src/commands/approvals/approval-flow.js';
import { openStore } from '../../../src/core/store/open-store.js';
import { createApprovalStore } from '../../../src/core/store/approval-store.js';
import { testApprovalSigner } from '../../support/approval-signer.js';
import { createRunStore } from '../../../src/core/store/run-store.js';
import { silentLogger } from '../../../src/core/logger.js';
import { writeFileTool } from '../../../src/core/tools/impl/write-file.js';
import { createWorkspace } from '../../../src/core/safety/workspace-jail.js';
import { createMemorySurface } from '../../support/memory-surface.js';
import { renderMarkdown } from '../../../src/adapters/playground/markdown.js';

async function previewOf(content: string, existing?: string) {
  const root = await mkdtemp(path.join(tmpdir(), 'tsuka-card-'));
  if (existing !== undefined) await writeFile(path.join(root, 'notes.md'), existing);
  const workspace = await createWorkspace(root);
  return writeFileTool.preview({ path: 'notes.md', content }, { workspace } as never);
}

async function postedCard(details: string[]) {
  const store = await openStore({ url: 'memory://', dataDirectory: '/tmp' });
  const runs = createRunStore(store);
  const run = await runs.create({ kind: 'ask', title: 't', startedBy: 'playground:alice', where: { platform: 'playground', channelId: 'c' } });
  const surface = createMemorySurface();
  const flow = createApprovalFlow({
    approvals: createApprovalStore(store, { signer: testApprovalSigner }),
    runs,
    admins: [],
    timeoutMs: 600_000,
    logger: silentLogger,
    now: () => Date.parse('2026-12-03T14:02:00Z'),
  });
  const controller = new AbortController();
  const asked = flow.promptFor({ surface, thread: 't', requester: 'playground:alice' }).ask(
    {
      id: 'r',
      runId: run.id,
      toolCallId: 'c',
      toolName: 'write_file',
      riskLevel: 'RESTRICTED',
      reason: 'writes a file',
      summary: 'write_file notes.md',
      details,
      agentName: 'geordi',
      allowForRun: true,
    },
    controller.signal,
  );
  await surface.waitFor(() => surface.messages.some((message) => message.buttons.length > 0));
  const text = surface.messages[0]!.text;
  controller.abort();
  await asked;
  return text;
}

describe('approval cards', () => {
  it('a new file shows what will be written: all of a short file, head and tail of a long one', async () => {
    const short = await previewOf('# Notes\nfirst\n');
    expect(short.details).toEqual(expect.arrayContaining(['new file', '+ # Notes', '+ first']));
    const long = await previewOf(Array.from({ length: 100 }, (_, index) => `line ${index + 1}`).join('\n'));
    expect(long.details).toContain('+ line 1');
    expect(long.details).toContain('… 80 more lines …');
    expect(long.details).toContain('+ line 100');
    expect(long.details).not.toContain('+ line 50');
  });

  it('shows the content or the change in a diff block, and when the prompt expires', async () => {
    const change = await previewOf('a\nB\nc\n', 'a\nb\nc\n');
    const text = await postedCard(change.details ?? []);
    expect(text).toContain('```diff\n@@ line 2: -1 +1 @@\n- b\n+ B\n```');
    expect(text).toContain('⌛ Expires at 14:12 UTC (in 10 min) if nobody decides');
    // The playground colours the block's lines.
    const html = renderMarkdown(text);
    expect(html).toContain('<span class="diff-del">- b</span>');
    expect(html).toContain('<span class="diff-add">+ B</span>');
  });
});
