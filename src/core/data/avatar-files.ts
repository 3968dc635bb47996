/**
 * A character's `avatar` may name an image file next to its data file (`"avatar": "spock.png"`,
 * relative to `characters/spock.json`): read once at load, served at `/avatars/<name>.png` like the
 * generated pictures. What is read is checked — the path stays inside the roster folder (symbolic
 * links resolved), the file is at most {@link AVATAR_MAX_BYTES}, and its first bytes say PNG, JPEG,
 * GIF or WebP (the extension alone says nothing). A file that fails is a clear problem at load,
 * never fatal: the character keeps its generated picture.
 */
import { open, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { DataProblem } from './data-problem.js';

/** Largest picture file accepted (Slack and Discord fetch it; 1 MiB is far more than a face needs). */
export const AVATAR_MAX_BYTES = 1024 * 1024;

export interface AvatarImage {
  bytes: Buffer;
  contentType: 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';
}

/** An `avatar` that names a local image file rather than an emoji or a URL. */
export const isAvatarFile = (avatar: string): boolean => !/^[a-z][a-z0-9+.-]*:/i.test(avatar) && /\.(?:png|jpe?g|gif|webp)$/i.test(avatar);

/** The format the file's first bytes announce, if it is one of the four. */
export function imageTypeOf(head: Uint8Array): AvatarImage['contentType'] | undefined {
  const starts = (bytes: number[], at = 0) => bytes.every((byte, index) => head[at + index] === byte);
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (starts([0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (starts([0x47, 0x49, 0x46, 0x38]) && (head[4] === 0x37 || head[4] === 0x39) && head[5] === 0x61) return 'image/gif';
  if (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp';
  return undefined;
}

const isInside = (root: string, target: string): boolean => {
  const relative = path.relative(root, target);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
};

/**
 * Reads the picture `avatar` names, relative to `dataFile` (both relative to `rootDirectory`).
 * Resolves to the image, or to the problem that keeps it out.
 */
export async function readAvatarFile(rootDirectory: string, dataFile: string, avatar: string): Promise<{ image: AvatarImage } | { problem: DataProblem }> {
  const problem = (message: string) => ({ problem: { file: dataFile, field: '/avatar', message: `${message} The character keeps its generated picture.` } });
  const root = path.resolve(rootDirectory);
  const target = path.resolve(root, path.dirname(dataFile), avatar);
  if (!isInside(root, target)) return problem(`"${avatar}" is outside the data folder: a picture file must be inside it.`);
  let real: string;
  try {
    real = await realpath(target);
    if (!isInside(await realpath(root), real)) return problem(`"${avatar}" leads outside the data folder (a symbolic link): a picture file must be inside it.`);
  } catch (error) {
    return problem(`"${avatar}" cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)}).`);
  }
  const handle = await open(real, 'r').catch((error: unknown) => error as NodeJS.ErrnoException);
  if (!('read' in handle)) return problem(`"${avatar}" cannot be read (${handle.code ?? String(handle)}).`);
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return problem(`"${avatar}" is not a file.`);
    if (stats.size > AVATAR_MAX_BYTES) return problem(`"${avatar}" is ${stats.size} bytes: at most ${AVATAR_MAX_BYTES} (1 MiB) is accepted.`);
    // One byte more than allowed, in case it grew since the size was read.
    const buffer = Buffer.alloc(Math.min(stats.size, AVATAR_MAX_BYTES) + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    if (bytesRead > AVATAR_MAX_BYTES) return problem(`"${avatar}" is over ${AVATAR_MAX_BYTES} bytes (1 MiB).`);
    const bytes = buffer.subarray(0, bytesRead);
    const contentType = imageTypeOf(bytes);
    if (!contentType) return problem(`"${avatar}" is not a PNG, JPEG, GIF or WebP image (its first bytes say otherwise).`);
    return { image: { bytes, contentType } };
  } finally {
    await handle.close();
  }
}
