/** docs/quickstart-slack.md stays true: six steps, commands that exist, the tier paragraph as the tool schemas have it. */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../../src/app/package-root.js';

const page = readFileSync(path.join(PACKAGE_ROOT, 'docs', 'quickstart-slack.md'), 'utf8');
const readme = readFileSync(path.join(PACKAGE_ROOT, 'README.md'), 'utf8');
const schemas = readdirSync(path.join(PACKAGE_ROOT, 'tools_schemas'))
  .filter((name) => name.endsWith('.json'))
  .map((name) => JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'tools_schemas', name), 'utf8')) as { name: string; requiredTier?: string });

describe('the Slack quick start', () => {
  it('takes at most six numbered steps and is linked first from the README', () => {
    expect(page.match(/^## \d+\. /gm)).toHaveLength(6);
    const firstLink = /\]\((docs\/quickstart-[a-z]+\.md)\)/.exec(readme);
    expect(firstLink?.[1]).toBe('docs/quickstart-slack.md');
  });

  it('names exactly the tools a SMALL model is not offered', () => {
    const medium = schemas.filter((schema) => schema.requiredTier === 'MEDIUM' || schema.requiredTier === 'LARGE').map((schema) => schema.name);
    expect(medium.length).toBeGreaterThan(3);
    const paragraph = /\*\*What the model's size means\.\*\*([\s\S]*?)\n\n/.exec(page)?.[1] ?? '';
    const named = [...paragraph.matchAll(/`([a-z_]+)`/g)].map((match) => match[1]!).filter((name) => schemas.some((schema) => schema.name === name));
    expect(named.sort()).toEqual(medium.sort());
  });

  it('uses only ./tsuka commands the command line has', () => {
    const commands = [...page.matchAll(/\.\/tsuka ([a-z]+)/g)].map((match) => match[1]!);
    expect(new Set(commands)).toEqual(new Set(['manifest', 'benchmark', 'doctor']));
    const usage = readFileSync(path.join(PACKAGE_ROOT, 'src', 'cli', 'main.ts'), 'utf8');
    for (const command of commands) expect(usage).toMatch(new RegExp(`tsuka ${command}\\b`));
    expect(page).not.toMatch(/npx tsuka/);
  });
});
