/** Images reach a vision model as OpenAI image parts; servers say whether a model sees (issue 23). */
import { describe, expect, it } from 'vitest';
import { toOpenAIMessages } from '../../../src/core/provider/chat-request.js';
import { parseVision } from '../../../src/core/provider/server-metadata.js';

describe('image parts', () => {
  it('puts images after the text as data URLs, and leaves messages without images as plain text', () => {
    const [withImage, plain] = toOpenAIMessages([
      { role: 'user', content: 'what is this?', name: 'ana', images: [{ mediaType: 'image/png', data: 'AAAA' }] },
      { role: 'user', content: 'hello' },
    ]);
    expect(withImage).toEqual({
      role: 'user',
      name: 'ana',
      content: [
        { type: 'text', text: 'what is this?' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
      ],
    });
    expect(plain).toEqual({ role: 'user', content: 'hello' });
  });
});

describe('parseVision', () => {
  it('reads llama-server /props modalities and Ollama /api/show capabilities', () => {
    expect(parseVision({ modalities: { vision: true, audio: false } })).toBe(true);
    expect(parseVision({ modalities: { vision: false } })).toBe(false);
    expect(parseVision({ capabilities: ['completion', 'vision'] })).toBe(true);
    expect(parseVision({ capabilities: ['completion', 'tools'] })).toBe(false);
    expect(parseVision({ n_ctx: 4096 })).toBeUndefined();
  });
});
