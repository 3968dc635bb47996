/**
 * The direct command: `./tsuka` at the root of a checkout runs the CLI with no npx in between,
 * also through a symlink elsewhere (on a PATH), which it follows back to the checkout.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, symlink, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnvironment } from '../support/cli-process.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const LAUNCHER = path.join(ROOT, 'tsuka');
let home: string;
let version: string;

beforeAll(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), 'tsuka-direct-'));
  version = (JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

describe('direct command', () => {
  it('./tsuka --version runs the CLI', async () => {
    const { stdout } = await promisify(execFile)(LAUNCHER, ['--version'], { cwd: home, env: cliEnvironment(home), timeout: 30_000 });
    expect(stdout.trim()).toBe(`tsuka ${version}`);
  });

  it('runs through a symlink on a PATH', async () => {
    const bin = path.join(home, 'bin');
    await mkdir(bin);
    await symlink(LAUNCHER, path.join(bin, 'tsuka'));
    const environment = cliEnvironment(home);
    const { stdout } = await promisify(execFile)('tsuka', ['--version'], {
      cwd: home,
      env: { ...environment, PATH: `${bin}:${environment.PATH}` },
      timeout: 30_000,
    });
    expect(stdout.trim()).toBe(`tsuka ${version}`);
  });
});
