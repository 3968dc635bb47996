/** Log lines: pretty on a terminal, JSON otherwise, forced by TSUKA_LOG_FORMAT; the banner follows the logs. */
import { describe, expect, it } from 'vitest';
import { createAnnouncer, createLogger, resolveLogFormat } from '../../../src/app/create-logger.js';
import { loadConfig } from '../../../src/config/load-config.js';
import { PACKAGE_ROOT } from '../../../src/app/package-root.js';

const now = () => new Date('2026-12-03T14:02:07.123Z');
const mask = (text: string) => text.replaceAll('sk-secret-value', '[secret masked]');

describe('log format', () => {
  it('auto is pretty on a terminal and JSON elsewhere; json and pretty force one', () => {
    expect(resolveLogFormat('auto', true)).toBe('pretty');
    expect(resolveLogFormat('auto', false)).toBe('json');
    expect(resolveLogFormat('auto', undefined)).toBe('json');
    expect(resolveLogFormat('json', true)).toBe('json');
    expect(resolveLogFormat('pretty', false)).toBe('pretty');
  });

  it('pretty lines are one line per entry, masked, with the stack only at debug level', () => {
    const lines: string[] = [];
    const error = new Error('connect ECONNREFUSED', { cause: new Error('sk-secret-value rejected') });
    createLogger({ format: 'pretty', level: 'info', maskSecrets: mask, write: (line) => lines.push(line) }).warn('model probe failed', {
      error,
      port: 3000,
      key: 'sk-secret-value',
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^\d\d:\d\d:\d\d WARN {2}model probe failed error="connect ECONNREFUSED \(cause: \[secret masked\] rejected\)" port=3000 key=\[secret masked\]\n$/,
    );
    const debugLines: string[] = [];
    createLogger({ format: 'pretty', level: 'debug', maskSecrets: mask, write: (line) => debugLines.push(line) }).error('failed', { error });
    expect(debugLines[0]).toMatch(/\n\s+at /);
  });

  it('JSON lines stay JSON, and the banner in JSON mode is a JSON line too', () => {
    const lines: string[] = [];
    createLogger({ format: 'json', level: 'info', maskSecrets: mask, write: (line) => lines.push(line) }).info('run started', { runId: 'r1' });
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'info', message: 'run started', runId: 'r1' });
    const banner: string[] = [];
    createAnnouncer('json', (text) => banner.push(text), now)('TSUKA is running: playground');
    expect(JSON.parse(banner[0]!)).toEqual({ time: '2026-12-03T14:02:07.123Z', level: 'info', message: 'TSUKA is running: playground' });
    createAnnouncer('pretty', (text) => banner.push(text), now)('TSUKA is running: playground');
    expect(banner[1]).toBe('TSUKA is running: playground\n');
  });

  it('TSUKA_LOG_FORMAT accepts json and pretty, and names the fix for anything else', () => {
    const load = (value?: string) => loadConfig({ environment: { TSUKA_LOG_FORMAT: value }, workingDirectory: '/tmp', rootDirectory: PACKAGE_ROOT });
    expect(load().logFormat).toBe('auto');
    expect(load('JSON').logFormat).toBe('json');
    expect(load('pretty').logFormat).toBe('pretty');
    expect(() => load('xml')).toThrow(/TSUKA_LOG_FORMAT="xml" is not valid: use json or pretty/);
  });
});
