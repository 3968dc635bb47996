/** The files a self-hoster needs are there and agree with the code: .env.example, LICENSE, SECURITY.md, the unit, dependencies. */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const read = (file: string): string => readFileSync(path.join(ROOT, file), 'utf8');

function sourceFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const full = path.join(folder, name);
    return statSync(full).isDirectory() ? sourceFiles(full) : /\.(ts|js)$/.test(name) ? [full] : [];
  });
}

describe('self-hoster kit', () => {
  it('.env.example lists every variable of the README table, all commented out', () => {
    const readme = read('README.md');
    const table = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('\n## ', readme.indexOf('## Configuration') + 5));
    const variables = [...table.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \|/gm)].map((match) => match[1]!);
    expect(variables.length).toBeGreaterThan(30);
    const example = read('.env.example');
    for (const variable of variables) expect(example, variable).toMatch(new RegExp(`^# ${variable}=`, 'm'));
    // Nothing is set by default: a copied file changes no behaviour until edited.
    expect(example.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'))).toEqual([]);
  });

  it('LICENSE is the MIT licence package.json names', () => {
    expect((JSON.parse(read('package.json')) as { license: string }).license).toBe('MIT');
    expect(read('LICENSE')).toMatch(/^MIT License\n/);
    expect(read('LICENSE')).toContain('THE SOFTWARE IS PROVIDED "AS IS"');
  });

  it('SECURITY.md says how to report, CHANGELOG.md has an Unreleased section, the systemd unit runs start', () => {
    expect(read('SECURITY.md')).toMatch(/## Reporting a vulnerability/);
    expect(read('CHANGELOG.md')).toMatch(/## \[Unreleased\]/);
    const unit = read('docs/tsuka.service');
    expect(unit).toMatch(/^ExecStart=\/usr\/bin\/node bin\/tsuka\.js start$/m);
    expect(unit).toMatch(/^User=tsuka$/m);
    expect(unit).toMatch(/^TimeoutStopSec=\d+$/m);
  });

  it('ws is a dev dependency, and nothing under src/ or bin/ imports it', () => {
    const manifest = JSON.parse(read('package.json')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
    expect(manifest.dependencies.ws).toBeUndefined();
    expect(manifest.devDependencies.ws).toBeDefined();
    for (const file of [...sourceFiles(path.join(ROOT, 'src')), ...sourceFiles(path.join(ROOT, 'bin'))]) {
      expect(readFileSync(file, 'utf8'), path.relative(ROOT, file)).not.toMatch(/from ['"]ws['"]|require\(['"]ws['"]\)/);
    }
  });
});
