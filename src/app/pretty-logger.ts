/**
 * Human-readable log lines for a terminal: `14:02:07 WARN  message key=value …`, secrets masked.
 * Errors show their message (and cause); the stack only at the debug level.
 */
import type { Logger } from '../core/logger.js';
import type { LogLevel } from '../config/app-config.js';
import { createLevelLogger } from './level-logger.js';

export function createPrettyLogger(options: {
  level: LogLevel;
  maskSecrets: (text: string) => string;
  write?: (line: string) => void;
  now?: () => Date;
}): Logger {
  const write = options.write ?? ((line: string) => process.stderr.write(line));
  const now = options.now ?? (() => new Date());
  const debug = options.level === 'debug';
  return createLevelLogger(options.level, (level, message, fields) => {
    const parts = Object.entries(fields)
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => `${key}=${describe(value)}`);
    const time = now().toISOString().slice(11, 19);
    const stack = debug ? stackOf(fields) : '';
    write(options.maskSecrets(`${time} ${level.toUpperCase().padEnd(5)} ${message}${parts.length ? ` ${parts.join(' ')}` : ''}${stack}\n`));
  });
}

function describe(value: unknown): string {
  if (value instanceof Error) {
    const cause = value.cause instanceof Error ? ` (cause: ${value.cause.message})` : '';
    return JSON.stringify(`${value.message}${cause}`);
  }
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value) ?? String(value);
}

function stackOf(fields: Record<string, unknown> | undefined): string {
  const error = Object.values(fields ?? {}).find((value): value is Error => value instanceof Error);
  return error?.stack ? `\n${error.stack}\n` : '';
}
