/** The process logger: JSON lines on stderr, filtered by level, with secret values masked. */
import type { Logger } from '../core/logger.js';
import type { LogLevel } from '../config/app-config.js';
import { createLevelLogger } from './level-logger.js';

export function createJsonLogger(options: {
  level: LogLevel;
  maskSecrets: (text: string) => string;
  write?: (line: string) => void;
  now?: () => Date;
}): Logger {
  const write = options.write ?? ((line: string) => process.stderr.write(line));
  const now = options.now ?? (() => new Date());
  return createLevelLogger(options.level, (level, message, fields) => {
    const entry: Record<string, unknown> = { time: now().toISOString(), level, message, ...fields };
    for (const [key, value] of Object.entries(entry)) {
      if (value instanceof Error) entry[key] = { name: value.name, message: value.message, stack: value.stack, cause: describeCause(value.cause) };
    }
    // Mask the values before encoding: a secret with a quote or backslash would not match once escaped.
    write(`${JSON.stringify(maskDeep(entry, options.maskSecrets))}\n`);
  });
}

function describeCause(cause: unknown): unknown {
  if (cause instanceof Error) return { name: cause.name, message: cause.message, cause: describeCause(cause.cause) };
  return cause === undefined ? undefined : String(cause);
}

function maskDeep(value: unknown, mask: (text: string) => string): unknown {
  if (typeof value === 'string') return mask(value);
  if (Array.isArray(value)) return value.map((item) => maskDeep(item, mask));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, maskDeep(item, mask)]));
  return value;
}
