import { describe, expect, it } from 'vitest';
import { parameterBillionsFromName, resolveModelTier, tierFromModelName } from '../../../src/core/provider/model-tier.js';

describe('model tier from the name', () => {
  it.each([
    ['qwen2.5-coder:7b', 'SMALL'],
    ['qwen2.5-coder:1.5b', 'SMALL'],
    ['llama3.2:3b', 'SMALL'],
    ['Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf', 'SMALL'],
    ['gemma-3n-E4B-it', 'SMALL'],
    ['SmolLM2-135M-Instruct', 'SMALL'],
    ['mistral-nemo:12b', 'SMALL'],
    ['phi-4:14b', 'MEDIUM'],
    ['gpt-oss-20b', 'MEDIUM'],
    ['gemma-3-27b-it-Q4_K_M.gguf', 'MEDIUM'],
    ['qwen3-30b-a3b', 'MEDIUM'],
    ['Qwen/QwQ-32B', 'MEDIUM'],
    ['Llama-3.3-70B-Instruct', 'LARGE'],
    ['mixtral-8x7b', 'LARGE'],
    ['gpt-oss-120b', 'LARGE'],
    ['gpt-4o', 'MEDIUM'],
    ['qwen/qwen3-coder:free', 'MEDIUM'],
  ] as const)('%s → %s', (name, tier) => {
    expect(tierFromModelName(name)).toBe(tier);
  });

  it('reads a mixture of experts as its approximate total', () => {
    expect(parameterBillionsFromName('mixtral-8x7b')).toBeGreaterThan(40);
    expect(parameterBillionsFromName('mixtral-8x7b')).toBeLessThan(56);
  });

  it('lets a measured profile win over the name', () => {
    expect(resolveModelTier('qwen2.5-coder:7b', { tier: 'LARGE' })).toBe('LARGE');
    expect(resolveModelTier('qwen2.5-coder:7b')).toBe('SMALL');
  });
});
