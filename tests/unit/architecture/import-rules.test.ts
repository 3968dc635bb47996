import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../../src');

function sourceFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((entry) => {
    const full = path.join(directory, entry);
    return statSync(full).isDirectory() ? sourceFiles(full) : full.endsWith('.ts') ? [full] : [];
  });
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)].map((match) => match[1] ?? match[2]!);
}

const PLATFORM_SDK = /^(@slack\/|discord\.js|@discordjs\/|discord-api-types)/;

describe('import rules (adapters → commands → core, never backwards)', () => {
  it.each(['core', 'commands'])('src/%s imports no platform SDK and no adapter', (layer) => {
    const offenders: string[] = [];
    for (const file of sourceFiles(path.join(SRC, layer))) {
      for (const specifier of importsOf(file)) {
        const resolved = specifier.startsWith('.') ? path.resolve(path.dirname(file), specifier) : specifier;
        if (PLATFORM_SDK.test(specifier) || resolved.startsWith(path.join(SRC, 'adapters'))) {
          offenders.push(`${path.relative(SRC, file)} imports ${specifier}`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });

  it('src/core never imports src/commands, src/app, src/cli, src/config or adapters', () => {
    const offenders: string[] = [];
    for (const file of sourceFiles(path.join(SRC, 'core'))) {
      for (const specifier of importsOf(file).filter((s) => s.startsWith('.'))) {
        const resolved = path.resolve(path.dirname(file), specifier);
        if (['commands', 'app', 'cli', 'config', 'adapters'].some((layer) => resolved.startsWith(path.join(SRC, layer)))) {
          offenders.push(`${path.relative(SRC, file)} imports ${specifier}`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });

  it('src/core writes nothing to the console and reads no process.env', () => {
    const offenders = sourceFiles(path.join(SRC, 'core')).filter((file) =>
      /\bconsole\.(log|error|warn|info|debug)\b|process\.env\b/.test(readFileSync(file, 'utf8')),
    );
    expect(offenders.map((file) => path.relative(SRC, file))).toEqual([]);
  });

  it('the matcher recognises platform imports (self-check)', () => {
    expect(PLATFORM_SDK.test('@slack/bolt')).toBe(true);
    expect(PLATFORM_SDK.test('discord.js')).toBe(true);
    expect(PLATFORM_SDK.test('openai')).toBe(false);
  });
});
