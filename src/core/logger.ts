/** The core reports through this injected logger; it never writes to the console itself. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

/** A logger that drops everything (tests, and code paths with nobody listening). */
export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child() {
    return silentLogger;
  },
};

/** A logger that records entries in memory, for tests that assert on logs. */
export function createMemoryLogger(): Logger & { entries: { level: string; message: string; fields: Record<string, unknown> }[] } {
  const entries: { level: string; message: string; fields: Record<string, unknown> }[] = [];
  const make = (base: Record<string, unknown>): Logger => ({
    debug: (message, fields) => entries.push({ level: 'debug', message, fields: { ...base, ...fields } }),
    info: (message, fields) => entries.push({ level: 'info', message, fields: { ...base, ...fields } }),
    warn: (message, fields) => entries.push({ level: 'warn', message, fields: { ...base, ...fields } }),
    error: (message, fields) => entries.push({ level: 'error', message, fields: { ...base, ...fields } }),
    child: (fields) => make({ ...base, ...fields }),
  });
  return Object.assign(make({}), { entries });
}
