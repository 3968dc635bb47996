import { describe, expect, it } from 'vitest';
import { openStore } from '../../../src/core/store/open-store.js';
import { createSessionStore, type Session } from '../../../src/core/store/session-store.js';
import { useTempDirectories } from './support/temp-directory.js';

const tempDirectory = useTempDirectories();

describe('session store', () => {
  it('resumes a thread after a restart with its character, role, effort pin and history', async () => {
    const directory = await tempDirectory();
    const session: Session = {
      threadId: 'slack:T1/C1/1712345.0001',
      character: 'geordi',
      activeRole: 'developer',
      effortPin: 'low',
      history: [
        { role: 'user', content: 'why does npm test fail?' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'execute_command', arguments: '{"command":"npm test"}' }] },
        { role: 'tool', toolCallId: 'c1', name: 'execute_command', content: 'exit 1' },
      ],
      updatedAt: 0,
    };
    const first = await openStore({ dataDirectory: directory });
    const saved = await createSessionStore(first, { now: () => 42 }).save(session);
    expect(saved.updatedAt).toBe(42);
    await first.close();

    const second = await openStore({ dataDirectory: directory });
    try {
      expect(await createSessionStore(second).get(session.threadId)).toEqual({ ...session, updatedAt: 42 });
    } finally {
      await second.close();
    }
  });

  it('applies concurrent updates of one thread one after another', async () => {
    const sessions = createSessionStore(await openStore({ url: 'memory', dataDirectory: '/unused' }));
    const threadId = 'discord:G1/C1/T1';
    await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        sessions.update(threadId, (current) => ({
          threadId,
          character: current?.character ?? 'spock',
          history: [...(current?.history ?? []), { role: 'user', content: `m${index}` }],
          updatedAt: 0,
        })),
      ),
    );
    const session = await sessions.get(threadId);
    expect(session?.history).toHaveLength(40);
    expect(await sessions.delete(threadId)).toBe(true);
    expect(await sessions.get(threadId)).toBeUndefined();
  });
});
