import { describe, expect, it } from 'vitest';
import { splitMessage } from '../../../src/commands/reply/split-message.js';

function fencesBalanced(part: string): boolean {
  return part.split('\n').filter((line) => /^\s*```/.test(line)).length % 2 === 0;
}

describe('splitMessage', () => {
  it('keeps a short text whole', () => {
    expect(splitMessage('hello', 100)).toEqual(['hello']);
  });

  it('splits at paragraph boundaries and loses no words', () => {
    const paragraphs = Array.from({ length: 30 }, (_, index) => `Paragraph ${index} ${'word '.repeat(20).trim()}`);
    const text = paragraphs.join('\n\n');
    const parts = splitMessage(text, 400);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(400);
    for (const part of parts) expect(part.startsWith('Paragraph')).toBe(true);
    expect(parts.join('\n\n')).toBe(text);
  });

  it('never breaks a code fence: closes and reopens it with its language', () => {
    const code = Array.from({ length: 200 }, (_, index) => `const value${index} = ${index};`).join('\n');
    const text = `Here is the file:\n\n\`\`\`ts\n${code}\n\`\`\`\n\nThat is all.`;
    const parts = splitMessage(text, 1000);
    expect(parts.length).toBeGreaterThan(3);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(1000);
      expect(fencesBalanced(part)).toBe(true);
    }
    expect(parts[1]!.startsWith('```ts\n')).toBe(true);
    const rejoinedCode = parts.join('\n').match(/const value\d+ = \d+;/g) ?? [];
    expect(rejoinedCode).toHaveLength(200);
    expect(parts.at(-1)).toContain('That is all.');
  });

  it('hard-cuts a single enormous word and keeps every character', () => {
    const text = 'x'.repeat(2500);
    const parts = splitMessage(text, 1000);
    expect(parts.join('')).toBe(text);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(1000);
  });

  it('handles a 12,000+-character reply with several code blocks at the Slack limit', () => {
    const block = (n: number) => `\`\`\`python\n${Array.from({ length: 70 }, (_, i) => `print("block ${n} line ${i}")`).join('\n')}\n\`\`\``;
    const text = Array.from({ length: 8 }, (_, n) => `Section ${n}\n\n${block(n)}`).join('\n\n');
    expect(text.length).toBeGreaterThan(12000);
    const parts = splitMessage(text, 3900);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(3900);
      expect(fencesBalanced(part)).toBe(true);
    }
    expect((parts.join('\n').match(/print\("block \d line \d+"\)/g) ?? []).length).toBe(560);
  });
});
