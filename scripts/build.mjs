// `npm run build`: type-checks src/ with tsc, bundles the CLI with esbuild into dist/ (bundle.mjs),
// copies the files the code reads from beside itself (JSON schemas, the playground's web/ folder) to
// where they sit under src/, and writes esbuild's metafile and the stamp bin/tsuka.js checks.
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sourceDigest, sourceSignature, STAMP_FILE } from '../bin/build-stamp.js';
import { bundleCli, copyAssets, METAFILE } from './bundle.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
// Taken before compiling: a source edited during the build leaves the build stale, never wrongly current.
const signature = sourceSignature(root);
const digest = sourceDigest(root);
rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
// esbuild does not check types: tsc does, and emits nothing.
execFileSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
const { metafile } = await bundleCli({ root, outdir: dist });
writeFileSync(path.join(dist, METAFILE), JSON.stringify(metafile));

copyAssets(path.join(root, 'src'), dist);
writeFileSync(path.join(dist, STAMP_FILE), `${JSON.stringify({ digest, signature, builtAt: new Date().toISOString() }, null, 2)}\n`);
process.stdout.write(`Built dist/ (${digest.slice(0, 12)}).\n`);
