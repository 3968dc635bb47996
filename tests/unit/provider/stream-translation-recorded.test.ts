/**
 * The stream translation gives the parts it gave before it stopped allocating per chunk: every
 * recorded stream (tests/fixtures/model-streams/), chunk by chunk, with and without offered tools
 * and with leading text held, against what the translator of before produced
 * (`translated-parts.jsonl`, written by it from the same recordings).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ModelStreamPart } from '../../../src/core/model/language-model.js';
import { createStreamTranslator } from '../../../src/core/provider/stream-translator.js';

const CORPUS = path.resolve(import.meta.dirname, '../../fixtures/model-streams');
const tools = [
  { name: 'run_command', description: 'Run a command.', parameters: { type: 'object', properties: { command: { type: 'string' }, cwd: { type: 'string' } } } },
  { name: 'get_current_weather', description: 'Weather.', parameters: { type: 'object', properties: { location: { type: 'string' } } } },
];

interface Expected {
  recording: string;
  variant: 'plain' | 'tools' | 'held';
  /** Per chunk: whether it carried a delta, then its parts. */
  chunks: [boolean, ...ModelStreamPart[]][];
  end?: ModelStreamPart[];
  sawBareClosingTag?: boolean;
  error?: string;
}

const EXPECTED: Expected[] = readFileSync(path.join(CORPUS, 'translated-parts.jsonl'), 'utf8')
  .split('\n')
  .filter((line) => line !== '')
  .map((line) => JSON.parse(line) as Expected);

function chunksOf(recording: string): unknown[] {
  return readFileSync(path.join(CORPUS, recording), 'utf8')
    .split(/\r?\n\r?\n/)
    .map((event) =>
      event
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n'),
    )
    .filter((data) => data !== '' && data !== '[DONE]')
    .map((data) => JSON.parse(data) as unknown);
}

describe('stream translation of recorded streams', () => {
  it('covers every recording in three variants', () => {
    expect(EXPECTED.length).toBeGreaterThanOrEqual(39);
  });

  it.each(EXPECTED.map((expected) => [`${expected.recording} (${expected.variant})`, expected] as const))('%s gives the same parts', (_, expected) => {
    const translator = createStreamTranslator({
      ...(expected.variant === 'plain' ? {} : { tools }),
      ...(expected.variant === 'held' ? { holdLimit: Infinity } : {}),
    });
    // One array for the whole stream, as the provider passes it: emptied after each chunk.
    const parts: ModelStreamPart[] = [];
    const seen: [boolean, ...ModelStreamPart[]][] = [];
    let error: string | undefined;
    try {
      for (const chunk of chunksOf(expected.recording)) {
        const sawDelta = translator.push(chunk, parts);
        seen.push([sawDelta, ...parts]);
        parts.length = 0;
      }
    } catch (thrown) {
      error = (thrown as Error).message;
    }
    expect(seen).toEqual(expected.chunks);
    if (expected.error !== undefined) {
      expect(error).toBe(expected.error);
      return;
    }
    expect(error).toBeUndefined();
    expect(translator.end()).toEqual(expected.end);
    expect(translator.sawBareClosingTag).toBe(expected.sawBareClosingTag);
  });
});
