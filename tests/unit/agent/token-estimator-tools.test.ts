import { describe, expect, it } from 'vitest';
import { createTokenEstimator } from '../../../src/core/agent/token-estimator.js';
import type { ToolDefinition } from '../../../src/core/model/language-model.js';

describe('the prompt size of the offered tools', () => {
  it('is the length of the tools serialised, on the first round and on every later one', () => {
    const tools: ToolDefinition[] = [
      { name: 'read_file', description: 'Reads a file. "Quoted" and ünïcode.', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
      { name: 'load_tools', description: 'Loads tools.', parameters: { type: 'object', properties: {} } },
    ];
    const estimator = createTokenEstimator(4);
    const expected = JSON.stringify(tools).length;
    expect(estimator.promptChars([], tools)).toBe(expected);
    expect(estimator.promptChars([], tools)).toBe(expected);
    // Another definition object with the same schema object but another description is measured anew.
    const renamed = [{ ...tools[0]!, description: 'Shorter.' }, tools[1]!];
    expect(estimator.promptChars([], renamed)).toBe(JSON.stringify(renamed).length);
  });
});
