import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { callTool, say } from '../../../src/core/model/scripted-model.js';
import type { ModelStreamPart } from '../../../src/core/model/language-model.js';
import { startCommandHarness } from '../../support/command-harness.js';

type Harness = Awaited<ReturnType<typeof startCommandHarness>>;
let harness: Harness;
afterEach(async () => {
  await harness?.stop();
});

const SECRET = 's3cr3t-deploy-value-123';
const reasonThenRead: ModelStreamPart[] = [
  { type: 'reasoning-delta', text: 'The config file should say which host.' },
  ...callTool('read_file', { path: 'deploy.env' }, 'c1'),
];

async function runOneTurn(): Promise<void> {
  harness = await startCommandHarness({ steps: [reasonThenRead, say(`It deploys to prod-7 with ${SECRET}.`)], environment: { DEPLOY_TOKEN: SECRET } });
  await writeFile(path.join(harness.engine.workspace.root, 'deploy.env'), `HOST=prod-7\nDEPLOY_TOKEN=${SECRET}\n`);
  await harness.mention('geordi where do we deploy?', { message: 'root' });
  await harness.surface.waitFor(() =>
    harness.surface.inThread('thread:root').some((message) => message.text.includes('prod-7') && message.buttons.length === 0),
  );
}

describe('complete transcripts', () => {
  it('stores in order the user message, reasoning, the tool call with arguments and output, the reply and usage — with no secret anywhere', async () => {
    await runOneTurn();
    const [run] = await harness.engine.runs.list({ limit: 1 });
    const events = await harness.engine.runs.events(run!.id);
    expect(events.map((event) => event.type)).toEqual(['message', 'reasoning', 'tool-call', 'tool-result', 'message', 'usage', 'status']);
    expect(events[1]).toMatchObject({ type: 'reasoning', agent: 'geordi', text: 'The config file should say which host.' });
    expect(events[2]).toMatchObject({ type: 'tool-call', tool: 'read_file', callId: 'c1', arguments: '{"path":"deploy.env"}' });
    expect(events[3]).toMatchObject({ type: 'tool-result', callId: 'c1', outcome: 'success' });
    expect((events[3] as { output: string }).output).toContain('HOST=prod-7');
    expect((events[3] as { output: string }).output).toContain('DEPLOY_TOKEN=[secret masked]');
    expect(events[5]).toMatchObject({ type: 'usage', agent: 'geordi', modelCalls: 2 });
    expect(JSON.stringify(events)).not.toContain(SECRET);
    // Reasoning is stored, never posted.
    expect(
      harness.surface
        .inThread('thread:root')
        .map((message) => message.text)
        .join('\n'),
    ).not.toContain('which host');
  });

  it('/tsuka export uploads Markdown or JSON holding the tool output and the reasoning; /tsuka trace answers the requester alone', async () => {
    await runOneTurn();
    expect(await harness.slash('tsuka', 'export json')).toEqual([expect.stringMatching(/Uploaded the transcript of .* \(JSON\)/)]);
    expect(await harness.slash('tsuka', 'export')).toEqual([expect.stringMatching(/\(Markdown\)/)]);
    const [json, markdown] = harness.surface.uploads;
    expect(json!.fileName).toMatch(/\.json$/);
    const document = JSON.parse(json!.content) as { events: { type: string; output?: string; text?: string }[] };
    expect(document.events.find((event) => event.type === 'tool-result')?.output).toContain('HOST=prod-7');
    expect(document.events.find((event) => event.type === 'reasoning')?.text).toContain('which host');
    expect(markdown!.fileName).toMatch(/\.md$/);
    expect(markdown!.content).toContain('HOST=prod-7');
    expect(markdown!.content).toContain('💭 geordi: reasoning');
    expect(markdown!.content).not.toContain('(no output recorded)');
    for (const upload of harness.surface.uploads) expect(upload.content).not.toContain(SECRET);

    const posted = harness.surface.messages.length;
    const [trace] = await harness.slash('tsuka', 'trace');
    expect(trace).toContain('The config file should say which host.');
    expect(trace).toContain('HOST=prod-7');
    expect(trace).not.toContain(SECRET);
    expect(harness.surface.messages.length).toBe(posted);
  });

  it('keeps the note of how near-JSON tool arguments were repaired', async () => {
    const repairedCall: ModelStreamPart[] = [
      {
        type: 'tool-call',
        toolCall: { id: 'c1', name: 'list_dir', arguments: '{"path":"."}' },
        input: { path: '.' },
        repaired: true,
        repairNotes: ['removed a code fence'],
      },
      { type: 'finish', reason: 'tool-calls' },
    ];
    harness = await startCommandHarness({ steps: [repairedCall, say('Listed.')] });
    await harness.mention('geordi list the workspace', { message: 'root' });
    await harness.surface.waitFor(() =>
      harness.surface.inThread('thread:root').some((message) => message.text.includes('Listed.') && message.buttons.length === 0),
    );
    const [run] = await harness.engine.runs.list({ limit: 1 });
    const events = await harness.engine.runs.events(run!.id);
    expect(events).toContainEqual(expect.objectContaining({ type: 'note', text: 'geordi: the arguments of list_dir were repaired (removed a code fence)' }));
  });
});
