/**
 * bin/tsuka.js runs dist/ only when the build is current (its stamp's digest matches src/ and the
 * tsconfig files, or there are no sources, as in the Docker image); otherwise, or with
 * TSUKA_RUN_FROM_SOURCE=1, the sources through tsx.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
// @ts-expect-error: plain JavaScript without types (it runs before anything is compiled)
import { buildState, sourceDigest, sourceSignature, STAMP_FILE } from '../../../bin/build-stamp.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const state = buildState as (root: string) => { current: boolean; reason: string };
const digest = sourceDigest as (root: string) => string;
const signature = sourceSignature as (root: string) => string;
let root: string;

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'tsuka-build-'));
  await mkdir(path.join(root, 'src', 'cli'), { recursive: true });
  await mkdir(path.join(root, 'dist', 'cli'), { recursive: true });
  await writeFile(
    path.join(root, 'src', 'cli', 'main.ts'),
    "export async function main(): Promise<number> { process.stdout.write('from source\\n'); return 0; }\n",
  );
  await writeFile(path.join(root, 'dist', 'cli', 'main.js'), "export async function main() { process.stdout.write('from dist\\n'); return 0; }\n");
  await writeFile(path.join(root, 'tsconfig.json'), '{}\n');
  await writeFile(path.join(root, 'package.json'), '{"type":"module"}\n');
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const stamp = () => writeFile(path.join(root, 'dist', STAMP_FILE as string), JSON.stringify({ digest: digest(root) }));

describe('build stamp', () => {
  it('is current only while the sources and tsconfig match the stamp', async () => {
    expect(state(root)).toMatchObject({ current: false, reason: 'the build has no stamp' });
    await stamp();
    expect(state(root)).toMatchObject({ current: true });
    await writeFile(path.join(root, 'src', 'cli', 'extra.ts'), 'export const x = 1;\n');
    expect(state(root)).toMatchObject({ current: false, reason: 'the sources changed since the build' });
    await stamp();
    await writeFile(path.join(root, 'tsconfig.json'), '{"compilerOptions":{}}\n');
    expect(state(root).current).toBe(false);
  });

  it('reads no source while none was written since the build; after a rewrite the digest decides', async () => {
    await writeFile(path.join(root, 'dist', STAMP_FILE as string), JSON.stringify({ digest: digest(root), signature: signature(root) }));
    expect(state(root)).toMatchObject({ current: true, reason: 'no source written since the build' });
    const main = path.join(root, 'src', 'cli', 'main.ts');
    const later = new Date(Date.now() + 60_000);
    // Rewritten with the same bytes (a checkout, a copy): still current, by the digest.
    await writeFile(main, await readFile(main));
    await utimes(main, later, later);
    expect(state(root)).toMatchObject({ current: true, reason: 'the build matches the sources' });
    // Other bytes of the same size: stale.
    await writeFile(main, (await readFile(main, 'utf8')).replace('from source', 'from SOURCE'));
    await utimes(main, new Date(later.getTime() + 1_000), new Date(later.getTime() + 1_000));
    expect(state(root)).toMatchObject({ current: false, reason: 'the sources changed since the build' });
  });

  it('runs a build without sources beside it (the Docker image), and never a missing build', async () => {
    await rm(path.join(root, 'src'), { recursive: true });
    expect(state(root)).toMatchObject({ current: true });
    await rm(path.join(root, 'dist'), { recursive: true });
    expect(state(root)).toMatchObject({ current: false, reason: 'no build (npm run build)' });
  });

  it('bin/tsuka.js runs dist/ when current, the sources when stale or when TSUKA_RUN_FROM_SOURCE=1', async () => {
    await cp(path.join(ROOT, 'bin'), path.join(root, 'bin'), { recursive: true });
    await symlink(path.join(ROOT, 'node_modules'), path.join(root, 'node_modules'));
    const run = async (environment: Record<string, string> = {}) =>
      (await promisify(execFile)(process.execPath, [path.join(root, 'bin', 'tsuka.js')], { env: { PATH: process.env.PATH, ...environment } })).stdout;
    await stamp();
    expect(await run()).toBe('from dist\n');
    expect(await run({ TSUKA_RUN_FROM_SOURCE: '1' })).toBe('from source\n');
    await writeFile(path.join(root, 'src', 'cli', 'extra.ts'), 'export const x = 1;\n');
    expect(await run()).toBe('from source\n');
  }, 30_000);
});
