// Decides whether dist/ is current: `npm run build` writes dist/.build-stamp.json with a digest of
// every file under src/ and the tsconfig files; bin/tsuka.js recomputes it and runs dist/ only when
// the two match (or when there is no src/ at all, as in the Docker image). The stamp also keeps each
// file's size and modification time: while none changed, the files are not read again. Plain JavaScript: it runs
// before anything can be compiled.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

export const STAMP_FILE = '.build-stamp.json';
const CONFIG_FILES = ['tsconfig.json', 'tsconfig.build.json'];

function sourceFiles(root) {
  return [...listFiles(path.join(root, 'src')), ...CONFIG_FILES.map((name) => path.join(root, name)).filter((file) => existsSync(file))].sort();
}

/** sha256 over the relative path and content of every source file, in a stable order. */
export function sourceDigest(root) {
  const hash = createHash('sha256');
  for (const file of sourceFiles(root)) {
    hash.update(path.relative(root, file).split(path.sep).join('/'));
    hash.update('\0');
    hash.update(readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/**
 * The path, size and modification time of every source file. Equal to the stamp's, nothing was
 * written since the build and the digest need not be recomputed; any difference (an edit, a checkout,
 * a copy that rewrote the times) only means the digest decides.
 */
export function sourceSignature(root) {
  return sourceFiles(root)
    .map((file) => {
      const { size, mtimeMs } = statSync(file);
      return `${path.relative(root, file).split(path.sep).join('/')}\0${size}\0${mtimeMs}`;
    })
    .join('\n');
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
  if (typeof stamp.signature === 'string' && stamp.signature === sourceSignature(root)) return { current: true, reason: 'no source written since the build' };
  return stamp.digest === sourceDigest(root)
    ? { current: true, reason: 'the build matches the sources' }
    : { current: false, reason: 'the sources changed since the build' };
}
