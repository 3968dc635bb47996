import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { installProcessGuard } from '../../../src/app/process-guard.js';
import { createMemoryLogger } from '../../../src/core/logger.js';

describe('process guard', () => {
  it('logs an unhandled rejection instead of letting it end the process, until removed', () => {
    const target = new EventEmitter() as unknown as NodeJS.Process;
    const logger = createMemoryLogger();
    const remove = installProcessGuard(logger, target);
    const reason = new TypeError("Cannot read properties of undefined (reading 'event')");
    target.emit('unhandledRejection', reason, Promise.resolve());
    expect(logger.entries).toEqual([
      expect.objectContaining({ level: 'error', message: expect.stringMatching(/unhandled rejection dropped/), fields: { error: reason } }),
    ]);
    remove();
    expect(target.listenerCount('unhandledRejection')).toBe(0);
  });
});
