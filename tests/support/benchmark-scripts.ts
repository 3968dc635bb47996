/**
 * Scripted-model behaviours for benchmark tests: a model that always answers the suite right (its
 * reference answers), and one that never calls a tool. Requests are matched to cases by their prompt.
 */
import { BENCHMARK_CASES, type BenchmarkAnswer } from '../../src/core/benchmark/benchmark-cases.js';
import type { ScriptedReplySpec } from './scripted-model-server.js';

function caseFor(body: unknown) {
  const messages = (body as { messages?: { role: string; content: string }[] }).messages ?? [];
  const prompt = messages.filter((message) => message.role === 'user').at(-1)?.content;
  return BENCHMARK_CASES.find((testCase) => testCase.messages.some((message) => message.role === 'user' && message.content === prompt));
}

const toSpec = (answer: BenchmarkAnswer): ScriptedReplySpec => ({
  text: answer.text,
  ...(answer.toolCalls.length > 0 ? { toolCalls: answer.toolCalls.map((call) => ({ name: call.name, arguments: call.input as object })) } : {}),
});

/** Always right: the reference answer of each case; speed probes get a plain text answer. */
export function largeModelReply(body: unknown): ScriptedReplySpec {
  const testCase = caseFor(body);
  return testCase ? toSpec(testCase.reference) : { text: 'one, two, three, four, five, six, seven, eight, nine, ten', chunkSize: 8 };
}

/** Never calls a tool: a polite sentence to everything. */
export function noToolsModelReply(): ScriptedReplySpec {
  return { text: 'I would be glad to help with that.' };
}

/** Always right, but writes every tool call as Hermes/Qwen text (a server without a tool parser). */
export function hermesTextModelReply(body: unknown): ScriptedReplySpec {
  const testCase = caseFor(body);
  if (!testCase) return { text: 'one, two, three, four, five', chunkSize: 8 };
  const calls = testCase.reference.toolCalls.map((call) => `<tool_call>\n${JSON.stringify({ name: call.name, arguments: call.input })}\n</tool_call>`);
  return { text: calls.length > 0 ? calls.join('\n') : testCase.reference.text, chunkSize: 5 };
}
