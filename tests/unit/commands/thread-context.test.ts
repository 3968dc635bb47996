/** Tag-in context (issue 23): who said what, oldest first, within the tier's budget, newest kept, masked. */
import { describe, expect, it } from 'vitest';
import type { ChatSurface } from '../../../src/commands/chat-surface.js';
import type { ContextMessage } from '../../../src/commands/context/conversation-context.js';
import { formatThreadContext, readThreadContext, THREAD_CONTEXT_BUDGET_CHARS } from '../../../src/commands/context/thread-context.js';
import { silentLogger } from '../../../src/core/logger.js';

const mask = (text: string) => text.replaceAll('sk-live-123', '[secret]');
const said = (userName: string, text: string, at: number, extra: Partial<ContextMessage> = {}): ContextMessage => ({
  user: `slack:${userName}`,
  userName,
  text,
  at,
  ...extra,
});

function surfaceWith(messages: ContextMessage[] | Error): ChatSurface {
  return {
    threadHistory: async () => {
      if (messages instanceof Error) throw messages;
      return messages;
    },
  } as unknown as ChatSurface;
}

describe('thread context', () => {
  it('lists who said what, oldest first, other apps’ bots marked, secrets masked, a pasted log kept as one entry', () => {
    const text = formatThreadContext(
      [
        said('ben', 'Error: boom\n  at main.ts:3 with sk-live-123', 2),
        said('ana', 'deploy failed', 1),
        said('ci', 'Build #42 failed', 3, { fromOtherBot: true }),
      ],
      10_000,
      mask,
    );
    expect(text.split('\n').slice(1)).toEqual([
      '- ana: deploy failed',
      '- ben: Error: boom',
      '    at main.ts:3 with [secret]',
      '- ci [bot of another app]: Build #42 failed',
    ]);
    expect(text).not.toContain('sk-live-123');
  });

  it('keeps the newest messages when they do not fit, and says how many were left out', () => {
    const messages = Array.from({ length: 50 }, (_, index) => said('ana', `message number ${index} ${'x'.repeat(80)}`, index));
    const text = formatThreadContext(messages, THREAD_CONTEXT_BUDGET_CHARS.SMALL, mask);
    expect(text.length).toBeLessThanOrEqual(THREAD_CONTEXT_BUDGET_CHARS.SMALL + 200);
    expect(text).toContain('message number 49');
    expect(text).not.toContain('message number 0 ');
    const kept = text.split('\n').length - 1;
    expect(text).toContain(`${50 - kept} earlier messages left out to fit`);
    // A larger tier keeps more.
    expect(formatThreadContext(messages, THREAD_CONTEXT_BUDGET_CHARS.LARGE, mask).split('\n').length - 1).toBeGreaterThan(kept);
  });

  it('in a thread the bot follows, only what it has not seen: newer than its last turn and not side talk it was given', async () => {
    const surface = surfaceWith([said('ana', 'old, answered already', 100), said('ben', 'side talk it heard', 300), said('ben', 'new and unseen', 400)]);
    const text = await readThreadContext({
      surface,
      request: { thread: 't', message: 'm' },
      tier: 'MEDIUM',
      maskSecrets: mask,
      logger: silentLogger,
      after: 200,
      known: ['side talk it heard'],
    });
    expect(text).toContain('new and unseen');
    expect(text).not.toContain('old, answered');
    expect(text).not.toContain('side talk it heard');
  });

  it('a history that cannot be read leaves the turn without it instead of failing it', async () => {
    const text = await readThreadContext({
      surface: surfaceWith(new Error('missing_scope')),
      request: { thread: 't', message: 'm' },
      tier: 'SMALL',
      maskSecrets: mask,
      logger: silentLogger,
    });
    expect(text).toBe('');
  });
});
