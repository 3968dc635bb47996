import { describe, expect, it } from 'vitest';
import { capToolResult, pagingHint } from '../../../src/core/agent/cap-tool-result.js';
import { createAgentRunner, maxRoundsNote } from '../../../src/core/agent/create-agent-runner.js';
import { pruneHistory } from '../../../src/core/agent/prune-history.js';
import { createTokenEstimator } from '../../../src/core/agent/token-estimator.js';
import { callTool, createScriptedModel, say } from '../../../src/core/model/scripted-model.js';
import type { ChatMessage } from '../../../src/core/model/language-model.js';
import { createFakeToolRegistry, fakeTool } from './support/fake-tool-registry.js';
import { assertValidHistory, createFakeGate, turnInput } from './support/fixtures.js';

const readFile = (output: (path: string) => string) =>
  fakeTool('read_file', {
    properties: { path: { type: 'string' }, offset: { type: 'integer' }, limit: { type: 'integer' } },
    execute: async (input) => ({ output: output(String(input['path'] ?? '')) }),
  });

/** A past exchange: user asks, assistant calls read_file, tool answers, assistant replies. */
function exchange(n: number): ChatMessage[] {
  const id = `old_${n}`;
  return [
    { role: 'user', content: `question ${n} ${'x'.repeat(200)}` },
    { role: 'assistant', content: '', toolCalls: [{ id, name: 'read_file', arguments: '{"path":"a"}' }] },
    { role: 'tool', toolCallId: id, name: 'read_file', content: 'y'.repeat(400) },
    { role: 'assistant', content: `answer ${n}` },
  ];
}

describe('round limit', () => {
  it('stops after 15 tool rounds and says so', async () => {
    const steps = Array.from({ length: 15 }, () => callTool('read_file', { path: 'a' }));
    const model = createScriptedModel(steps);
    const tools = createFakeToolRegistry([readFile(() => 'same as before')]);
    const result = await createAgentRunner({ model, tools, permissions: createFakeGate() }).runTurn(turnInput());

    expect(result.finishReason).toBe('max-rounds');
    expect(model.requests).toHaveLength(15);
    expect(tools.executed).toHaveLength(15);
    expect(result.text).toContain(maxRoundsNote(15));
    expect(result.text).toContain("I stopped after 15 tool rounds without finishing; say 'continue' to go on.");
    assertValidHistory(result.history);
  });
});

describe('history pruning', () => {
  it('drops the oldest messages but never separates a tool result from its call', () => {
    const estimator = createTokenEstimator(3.5);
    const history = [...exchange(1), ...exchange(2), ...exchange(3), { role: 'user', content: 'latest question' } as ChatMessage];
    const system: ChatMessage = { role: 'system', content: 'You are Geordi.' };
    // Budget for roughly one old exchange besides the system prompt and the last question.
    const pruned = pruneHistory({ system, history, budgetTokens: 260, tokensForMessages: (m) => estimator.tokensForMessages(m) });

    expect(pruned.removedMessages).toBeGreaterThan(0);
    expect(pruned.history.at(-1)).toEqual({ role: 'user', content: 'latest question' });
    expect(estimator.tokensForMessages([system, ...pruned.history])).toBeLessThanOrEqual(260);
    assertValidHistory(pruned.history);
    for (let budget = 0; budget < 700; budget += 7) {
      const cut = pruneHistory({ system, history, budgetTokens: budget, tokensForMessages: (m) => estimator.tokensForMessages(m) });
      assertValidHistory(cut.history);
      expect(cut.history.at(-1)?.content).toBe('latest question');
    }
  });

  it('keeps the last user message and everything after it even over budget, and drops orphan tool results', () => {
    const estimator = createTokenEstimator(3.5);
    const orphan: ChatMessage = { role: 'tool', toolCallId: 'gone', name: 'read_file', content: 'stale' };
    const tail = exchange(9);
    const pruned = pruneHistory({
      system: { role: 'system', content: 's' },
      history: [orphan, ...tail],
      budgetTokens: 1,
      tokensForMessages: (m) => estimator.tokensForMessages(m),
    });
    expect(pruned.history).toEqual(tail);
    expect(pruned.removedMessages).toBe(1);
  });

  it('prunes what the model is sent, reports it, and still returns the full history', async () => {
    const model = createScriptedModel([say('short answer')]);
    const past = [...exchange(1), ...exchange(2), ...exchange(3)];
    const input = turnInput({ history: past });
    const runner = createAgentRunner({ model, tools: createFakeToolRegistry([]), permissions: createFakeGate(), settings: { historyBudgetTokens: 300 } });
    const result = await runner.runTurn(input);

    const sent = model.requests[0]!.messages;
    expect(sent[0]?.role).toBe('system');
    expect(sent.length).toBeLessThan(past.length + 2);
    assertValidHistory(sent.slice(1));
    const pruned = input.events.find((event) => event.type === 'history-pruned');
    expect(pruned).toEqual({ type: 'history-pruned', removedMessages: past.length + 2 - sent.length });
    expect(result.history).toHaveLength(past.length + 2);
  });
});

describe('tool result capping', () => {
  const bigOutput = Array.from({ length: 2000 }, (_, i) => `line ${i + 1}: ${'z'.repeat(40)}`).join('\n');

  it('keeps head and tail with a note naming the cut and the paging parameters', () => {
    const capped = capToolResult(bigOutput, { toolName: 'read_file', maxTokens: 500, charsPerToken: 3.5 });
    expect(capped.capped).toBe(true);
    expect(capped.text.startsWith('line 1: ')).toBe(true);
    expect(capped.text.endsWith(`line 2000: ${'z'.repeat(40)}`)).toBe(true);
    expect(capped.text).toMatch(/\[… \d+ lines \/ ~\d+ tokens cut … use read_file with offset\/limit to page\]/);
    expect(capped.text.length).toBeLessThanOrEqual(500 * 3.5);
  });

  it('suggests narrowing the query for tools without paging, and leaves short output alone', () => {
    expect(pagingHint('grep_search')).toBe('narrow the query');
    expect(capToolResult(bigOutput, { toolName: 'grep_search', maxTokens: 200, charsPerToken: 3.5 }).text).toContain('narrow the query');
    expect(capToolResult('short', { toolName: 'grep_search', maxTokens: 200, charsPerToken: 3.5 })).toEqual({ text: 'short', capped: false });
  });

  it('caps what the model sees in the loop', async () => {
    const model = createScriptedModel([callTool('read_file', { path: 'big.log' }, 'c1'), say('Long file.')]);
    const tools = createFakeToolRegistry([readFile(() => bigOutput)]);
    await createAgentRunner({ model, tools, permissions: createFakeGate(), settings: { maxToolResultTokens: 300 } }).runTurn(turnInput());
    const toolMessage = model.requests[1]!.messages.find((message) => message.role === 'tool');
    expect(toolMessage?.content.length).toBeLessThan(bigOutput.length / 10);
    expect(toolMessage?.content).toContain('use read_file with offset/limit to page');
  });
});

describe('token calibration', () => {
  it('moves chars-per-token towards what the server reports, within bounds', () => {
    const estimator = createTokenEstimator(3.5);
    estimator.calibrate(1000, 500);
    expect(estimator.charsPerToken).toBeCloseTo(2.75);
    for (let i = 0; i < 20; i++) estimator.calibrate(1000, 1);
    expect(estimator.charsPerToken).toBeLessThanOrEqual(8);
    expect(estimator.charsPerToken).toBeGreaterThan(7.9);
    estimator.calibrate(1000, 0);
    expect(estimator.charsPerToken).toBeGreaterThan(7.9);
  });

  it('recalibrates the runner after a usage part', async () => {
    const model = createScriptedModel([
      [
        { type: 'text-delta', text: 'hi' },
        { type: 'usage', usage: { promptTokens: 1000, completionTokens: 1 } },
        { type: 'finish', reason: 'stop' },
      ],
    ]);
    const runner = createAgentRunner({ model, tools: createFakeToolRegistry([]), permissions: createFakeGate() });
    expect(runner.charsPerToken).toBe(3.5);
    const result = await runner.runTurn(turnInput());
    // The prompt is a few hundred characters reported as 1000 tokens: far fewer chars per token.
    expect(runner.charsPerToken).toBeLessThan(3.5);
    expect(result.usage).toMatchObject({ promptTokens: 1000, completionTokens: 1, peakContextTokens: 1000, modelCalls: 1 });
  });
});
