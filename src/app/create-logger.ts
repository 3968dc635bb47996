/** The process logger in the configured format: JSON lines, or human-readable lines on a terminal. */
import type { Logger } from '../core/logger.js';
import type { LogFormat, LogLevel } from '../config/app-config.js';
import { createJsonLogger } from './json-logger.js';
import { createPrettyLogger } from './pretty-logger.js';

/** `auto`: pretty on a terminal (`interactive`), JSON otherwise (containers, files, log shippers). */
export function resolveLogFormat(format: LogFormat, interactive: boolean | undefined): 'json' | 'pretty' {
  if (format === 'auto') return interactive ? 'pretty' : 'json';
  return format;
}

export function createLogger(options: {
  format: 'json' | 'pretty';
  level: LogLevel;
  maskSecrets: (text: string) => string;
  write: (line: string) => void;
}): Logger {
  return options.format === 'pretty' ? createPrettyLogger(options) : createJsonLogger(options);
}

/**
 * Start banner lines in the same format as the logs, so a collected stream never mixes the two:
 * plain text for a person, a JSON line (level info) for a log shipper.
 */
export function createAnnouncer(format: 'json' | 'pretty', write: (text: string) => void, now: () => Date = () => new Date()): (line: string) => void {
  if (format === 'pretty') return (line) => write(`${line}\n`);
  return (line) => write(`${JSON.stringify({ time: now().toISOString(), level: 'info', message: line })}\n`);
}
