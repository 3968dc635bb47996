// Decides whether dist/ is current: `npm run build` writes dist/.build-stamp.json with a digest of
// every file under src/ and the tsconfig files; bin/tsuka.js recomputes it and runs dist/ only when
// the two match (or when there is no src/ at all, as in the Docker image). Plain JavaScript: it runs
// before anything can be compiled.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

export const STAMP_FILE = '.build-stamp.json';
const CONFIG_FILES = ['tsconfig.json', 'tsconfig.build.json'];

/** sha256 over the relative path and content of every source file, in a stable order. */
export function sourceDigest(root) {
  const hash = createHash('sha256');
  const files = [...listFiles(path.join(root, 'src')), ...CONFIG_FILES.map((name) => path.join(root, name)).filter((file) => existsSync(file))];
  for (const file of files.sort()) {
    hash.update(path.relative(root, file).split(path.sep).join('/'));
    hash.update('\0');
    hash.update(readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex');
}

function listFiles(folder) {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    return entry.isDirectory() ? listFiles(full) : entry.isFile() ? [full] : [];
  });
}

/** { current, reason }: whether `root`/dist can run instead of the sources, and why (or why not). */
export function buildState(root) {
  const entry = path.join(root, 'dist', 'cli', 'main.js');
  if (!existsSync(entry)) return { current: false, reason: 'no build (npm run build)' };
  if (!existsSync(path.join(root, 'src'))) return { current: true, reason: 'no sources beside the build' };
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(path.join(root, 'dist', STAMP_FILE), 'utf8'));
  } catch {
    return { current: false, reason: 'the build has no stamp' };
  }
  return stamp.digest === sourceDigest(root)
    ? { current: true, reason: 'the build matches the sources' }
    : { current: false, reason: 'the sources changed since the build' };
}
