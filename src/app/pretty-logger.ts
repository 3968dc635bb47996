/**
 * Human-readable log lines for a terminal: `14:02:07 WARN  message key=value …`, secrets masked.
 * Errors show their message (and cause); the stack only at the debug level.
 */
import type { Logger } from '../core/logger.js';
import type { LogLevel } from '../config/app-config.js';

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export function createPrettyLogger(options: {
  level: LogLevel;
  maskSecrets: (text: string) => string;
  write?: (line: string) => void;
  now?: () => Date;
}): Logger {
  const write = options.write ?? ((line: string) => process.stderr.write(line));
  const now = options.now ?? (() => new Date());
  const make = (base: Record<string, unknown>): Logger => {
    const emit = (level: LogLevel, message: string, fields?: Record<string, unknown>) => {
      if (ORDER[level] < ORDER[options.level]) return;
      const parts = Object.entries({ ...base, ...fields })
        .filter(([, value]) => value !== undefined)
        .map(([key, value]) => `${key}=${describe(value, options.level === 'debug')}`);
      const time = now().toISOString().slice(11, 19);
      const stack = options.level === 'debug' ? stackOf(fields) : '';
      write(options.maskSecrets(`${time} ${level.toUpperCase().padEnd(5)} ${message}${parts.length ? ` ${parts.join(' ')}` : ''}${stack}\n`));
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

function describe(value: unknown, verbose: boolean): string {
  if (value instanceof Error) {
    const cause = value.cause instanceof Error ? ` (cause: ${value.cause.message})` : '';
    return JSON.stringify(`${value.message}${cause}`);
  }
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  if (verbose || typeof value !== 'object' || value === null) return JSON.stringify(value) ?? String(value);
  return JSON.stringify(value);
}

function stackOf(fields: Record<string, unknown> | undefined): string {
  const error = Object.values(fields ?? {}).find((value): value is Error => value instanceof Error);
  return error?.stack ? `\n${error.stack}\n` : '';
}
