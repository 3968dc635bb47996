import { describe, expect, it } from 'vitest';
import { AbortedError, ModelError } from '../../../../src/core/errors.js';
import { createScriptedModel, say } from '../../../../src/core/model/scripted-model.js';
import {
  CONDENSE_MAX_INPUT_CHARS,
  CONDENSE_THRESHOLD_CHARS,
  condensePrompt,
  condenseStepOutput,
  needsCondensing,
} from '../../../../src/core/workflows/goal/condense.js';

describe('needsCondensing', () => {
  it('is true only past the limit (2,000 characters by default)', () => {
    expect(needsCondensing('x'.repeat(CONDENSE_THRESHOLD_CHARS))).toBe(false);
    expect(needsCondensing('x'.repeat(CONDENSE_THRESHOLD_CHARS + 1))).toBe(true);
    expect(needsCondensing('x'.repeat(11), 10)).toBe(true);
  });
});

describe('condensePrompt', () => {
  it('sends a very long output with its middle left out, keeping head and tail', () => {
    const text = `HEAD${'m'.repeat(CONDENSE_MAX_INPUT_CHARS * 2)}TAIL`;
    const { user } = condensePrompt(text);
    expect(user.length).toBeLessThan(CONDENSE_MAX_INPUT_CHARS + 200);
    expect(user).toContain('HEAD');
    expect(user).toContain('TAIL');
    expect(user).toMatch(/characters left out/);
  });
});

describe('condenseStepOutput', () => {
  it('makes one model call without tools and returns the streamed summary', async () => {
    const model = createScriptedModel([
      [
        { type: 'reasoning-delta', text: 'thinking about it' },
        { type: 'text-delta', text: '  Wrote src/cli.ts; ' },
        { type: 'text-delta', text: 'tests pass.  ' },
        { type: 'finish', reason: 'stop' },
      ],
    ]);
    const output = `Long output ${'line\n'.repeat(600)}`;
    const summary = await condenseStepOutput({ model, text: output });
    expect(summary).toBe('Wrote src/cli.ts; tests pass.');
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]?.tools).toBeUndefined();
    expect(model.requests[0]?.messages.map((message) => message.role)).toEqual(['system', 'user']);
    expect(model.requests[0]?.messages[1]?.content).toContain('Long output');
  });

  it('throws ModelError on an empty summary', async () => {
    const model = createScriptedModel([say('   ')]);
    await expect(condenseStepOutput({ model, text: 'x'.repeat(3000) })).rejects.toBeInstanceOf(ModelError);
  });

  it('throws AbortedError when stopped', async () => {
    const controller = new AbortController();
    controller.abort();
    const model = createScriptedModel([say('summary')]);
    await expect(condenseStepOutput({ model, text: 'x'.repeat(3000), signal: controller.signal })).rejects.toBeInstanceOf(AbortedError);
  });

  it('wraps a raw model failure in ModelError keeping the cause', async () => {
    const failure = new Error('socket hang up');
    const model = createScriptedModel([
      () => {
        throw failure;
      },
    ]);
    const error = await condenseStepOutput({ model, text: 'x'.repeat(3000) }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).cause).toBe(failure);
  });
});
