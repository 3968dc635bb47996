import { afterEach, describe, expect, it } from 'vitest';
import { callTool, say } from '../../../src/core/model/scripted-model.js';
import { startCommandHarness } from '../../support/command-harness.js';

type Harness = Awaited<ReturnType<typeof startCommandHarness>>;
let harness: Harness;
afterEach(async () => {
  await harness?.stop();
});

const toolResults = (h: Harness, request: number) =>
  h.model.requests[request]!.messages.filter((message) => message.role === 'tool').map((message) => message.content);

describe('tools in a plain conversation', () => {
  it('lets geordi save a lesson with save_memory as his prompt asks, offered from the first round', async () => {
    harness = await startCommandHarness({ steps: [callTool('save_memory', { content: 'The API tests need Redis running.' }, 'c1'), say('Noted.')] });
    await harness.mention('geordi remember that the API tests need Redis', { message: 'root' });
    await harness.surface.waitFor(() =>
      harness.surface.inThread('thread:root').some((message) => message.text.includes('Noted.') && message.buttons.length === 0),
    );
    expect((harness.model.requests[0]!.tools ?? []).map((tool) => tool.name)).toContain('save_memory');
    expect(toolResults(harness, 1)[0]).not.toMatch(/not available/);
    // Saved in the memory of the channel where it was said (issue 21).
    const facts = await harness.engine.memory.list('channel:playground:general');
    expect(facts.map((fact) => fact.content)).toContain('The API tests need Redis running.');
  });

  it('keeps report_status as a closing summary and runs spawn_agent as a sub-agent whose report is stored', async () => {
    harness = await startCommandHarness({
      steps: [
        callTool('spawn_agent', { task: 'List the test folders.' }, 'c1'),
        say('tests/unit and tests/e2e.'),
        callTool('report_status', { status: 'COMPLETED', summary: 'Found the test folders.' }, 'c2'),
        say('Done: two test folders.'),
      ],
    });
    await harness.mention('geordi which test folders exist?', { message: 'root' });
    await harness.surface.waitFor(() =>
      harness.surface.inThread('thread:root').some((message) => message.text.includes('Done: two test folders.') && message.buttons.length === 0),
    );
    expect(harness.model.requests[1]!.messages.at(-1)?.content).toContain('Sub-task from geordi: List the test folders.');
    expect(toolResults(harness, 2)[0]).toBe('tests/unit and tests/e2e.');
    expect(toolResults(harness, 3)[1]).toContain('Closing summary recorded (COMPLETED): Found the test folders.');
    const [run] = await harness.engine.runs.list({ limit: 1 });
    const events = await harness.engine.runs.events(run!.id);
    expect(events.some((event) => event.type === 'message' && event.agent.includes('sub-agent of geordi') && event.text === 'tests/unit and tests/e2e.')).toBe(
      true,
    );
  });
});
