import { type FileHandle, open } from 'node:fs/promises';

/** How many leading bytes are inspected to tell text from binary. */
export const BINARY_SNIFF_BYTES = 8192;

/**
 * Heuristic shared by the file tools: a NUL byte, or many control characters, in the first
 * bytes means binary. Good enough to keep images and archives out of the model's context.
 */
export function looksBinary(sample: Uint8Array): boolean {
  const length = Math.min(sample.length, BINARY_SNIFF_BYTES);
  if (length === 0) return false;
  let control = 0;
  for (let index = 0; index < length; index += 1) {
    const byte = sample[index] ?? 0;
    if (byte === 0) return true;
    if (byte < 7 || (byte > 13 && byte < 32 && byte !== 27)) control += 1;
  }
  return control / length > 0.1;
}

/** Reads the first bytes of a file and applies `looksBinary`. */
export async function isBinaryFile(absolutePath: string): Promise<boolean> {
  const handle = await open(absolutePath, 'r');
  try {
    return await isBinaryHandle(handle);
  } finally {
    await handle.close();
  }
}

/** `looksBinary` on the first bytes of an open file (read at position 0; the file position is left alone). */
export async function isBinaryHandle(handle: FileHandle): Promise<boolean> {
  const sample = Buffer.alloc(BINARY_SNIFF_BYTES);
  const { bytesRead } = await handle.read(sample, 0, BINARY_SNIFF_BYTES, 0);
  return looksBinary(sample.subarray(0, bytesRead));
}
