/** Files of a thread's earlier messages (issue 23): the newest few, each with the message it came from. */
import { describe, expect, it } from 'vitest';
import type { ContextMessage } from '../../../src/commands/context/conversation-context.js';
import { earlierFiles, THREAD_FILES_MAX } from '../../../src/commands/context/thread-files.js';

const mask = (text: string) => text.replaceAll('sk-live-1', '[secret]');
const message = (userName: string, text: string, at: number, names: string[]): ContextMessage => ({
  user: `slack:${userName}`,
  userName,
  text,
  at,
  fileNames: names,
  files: names.map((name) => ({ name, source: `https://files.example/${name}` })),
});

describe('earlierFiles', () => {
  it('keeps the newest files, oldest first, and says which message each came from (masked, cut)', () => {
    const messages = [
      message('ben', 'second batch', Date.UTC(2025, 5, 1, 10, 5), ['c.log', 'd.log', 'e.log', 'f.log']),
      message('ana', `first batch with the key sk-live-1 and a long tail ${'t'.repeat(80)}`, Date.UTC(2025, 5, 1, 10, 0), ['a.log', 'b.log']),
    ];
    const earlier = earlierFiles(messages, mask);
    expect(earlier.files.map((file) => file.name)).toEqual(['b.log', 'c.log', 'd.log', 'e.log', 'f.log']);
    expect(earlier.files).toHaveLength(THREAD_FILES_MAX);
    expect(earlier.total).toBe(6);
    expect(earlier.heading).toContain('the newest 5 of 6; the 1 older only named above');
    const origin = earlier.originOf(earlier.files[0]!)!;
    expect(origin).toMatch(/^ana's message of 2025-06-01 10:00 UTC “first batch with the key \[secret\]/);
    expect(origin).toMatch(/…”$/);
    expect(earlier.originOf(earlier.files[1]!)).toBe("ben's message of 2025-06-01 10:05 UTC “second batch”");
  });

  it('no files, no block', () => {
    expect(earlierFiles([{ user: 'u', text: 'hi', at: 1 }], mask).files).toEqual([]);
  });
});
