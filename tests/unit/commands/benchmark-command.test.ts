import { afterEach, describe, expect, it } from 'vitest';
import type { ModelStreamPart } from '../../../src/core/model/language-model.js';
import type { ModelRequest } from '../../../src/core/model/language-model.js';
import { BENCHMARK_CASES } from '../../../src/core/benchmark/benchmark-cases.js';
import { say } from '../../../src/core/model/scripted-model.js';
import { startCommandHarness } from '../../support/command-harness.js';

type Harness = Awaited<ReturnType<typeof startCommandHarness>>;
let harness: Harness | undefined;
afterEach(async () => {
  await harness?.stop();
  harness = undefined;
});

/** Answers each benchmark case with its reference answer (an always-right model). */
function rightAnswer(request: ModelRequest): ModelStreamPart[] {
  const prompt = request.messages.filter((message) => message.role === 'user').at(-1)?.content;
  const testCase = BENCHMARK_CASES.find((candidate) => candidate.messages.some((message) => message.content === prompt));
  if (!testCase) return say('one, two, three');
  const calls: ModelStreamPart[] = testCase.reference.toolCalls.map((call, index) => ({
    type: 'tool-call',
    toolCall: { id: `c${index}`, name: call.name, arguments: JSON.stringify(call.input) },
    input: call.input,
  }));
  return [
    ...(testCase.reference.text ? [{ type: 'text-delta' as const, text: testCase.reference.text }] : []),
    ...calls,
    { type: 'finish', reason: calls.length > 0 ? 'tool-calls' : 'stop' },
  ];
}

describe('/tsuka benchmark', () => {
  it('is for admins only', async () => {
    harness = await startCommandHarness({ settings: { admins: ['playground:admin'] } });
    expect(await harness.slash('tsuka', 'benchmark')).toEqual(['Only an admin can run the benchmark.']);
    expect(harness.model.requests).toHaveLength(0);
  });

  it('shows progress, then the table and the tier, which the next turns use', async () => {
    harness = await startCommandHarness({
      settings: { admins: ['playground:alice'] },
      steps: Array.from({ length: BENCHMARK_CASES.length + 2 }, () => rightAnswer),
    });
    expect(harness.engine.tiers.tierFor('scripted-model-7b')).toBe('SMALL');
    const replies: string[] = [];
    const finished = new Promise<void>((resolve) => {
      void harness!.slash('tsuka', 'benchmark', {
        reply: async (text) => {
          replies.push(text);
          if (/is used for/.test(text)) resolve();
        },
      });
    });
    await finished;
    expect(replies[0]).toMatch(/^Benchmarking scripted-model-7b/);
    expect(replies.some((text) => /^Benchmark: \d+\/16 steps done/.test(text))).toBe(true);
    expect(replies.at(-1)).toMatch(/tier\s+LARGE[\s\S]*Tier LARGE is used for scripted-model-7b from now on/);
    expect(harness.engine.tiers.tierFor('scripted-model-7b')).toBe('LARGE');
    const [status] = await harness.slash('tsuka', 'status');
    expect(status).toMatch(/tier LARGE/);
  });
});
