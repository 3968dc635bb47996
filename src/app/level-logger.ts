/**
 * What every process logger shares: entries under the configured level are dropped, and `child`
 * adds fields to every entry. Each format (JSON lines, pretty lines) only writes one entry.
 */
import type { Logger } from '../core/logger.js';
import type { LogLevel } from '../config/app-config.js';

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export type WriteEntry = (level: LogLevel, message: string, fields: Record<string, unknown>) => void;

export function createLevelLogger(level: LogLevel, writeEntry: WriteEntry): Logger {
  const make = (base: Record<string, unknown>): Logger => {
    const emit = (entryLevel: LogLevel, message: string, fields?: Record<string, unknown>) => {
      if (ORDER[entryLevel] < ORDER[level]) return;
      writeEntry(entryLevel, message, { ...base, ...fields });
    };
    return {
      debug: (message, fields) => emit('debug', message, fields),
      info: (message, fields) => emit('info', message, fields),
      warn: (message, fields) => emit('warn', message, fields),
      error: (message, fields) => emit('error', message, fields),
      child: (fields) => make({ ...base, ...fields }),
    };
  };
  return make({});
}
