/**
 * The key stored approvals are signed with (approval-signature.ts), in this order:
 * 1. `TSUKA_APPROVAL_KEY` (the configuration's `approvalKey`): a secret set on every replica;
 * 2. on Redis with a password, derived from that password (every replica has it; a command that
 *    can write to Redis without it cannot sign);
 * 3. otherwise a random key kept in the data folder (`approval.key`, mode 0600), made at first start —
 *    one data folder is one bot (`tsuka start` and `tsuka ask` on it share the key).
 * `memory://` stores (tests) get a random key for the process.
 * The secret is always stretched through HKDF-SHA256, so the raw setting or password is never the key.
 */
import { hkdfSync, randomBytes } from 'node:crypto';
import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { StoreError } from '../errors.js';

export const APPROVAL_KEY_FILE_NAME = 'approval.key';
const KEY_BYTES = 32;

export type ApprovalKeySource = 'TSUKA_APPROVAL_KEY' | 'redis-password' | 'key-file' | 'process';

export interface ApprovalKey {
  key: Buffer;
  source: ApprovalKeySource;
}

const derive = (secret: string, purpose: string): Buffer =>
  Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.from('tsuka-approvals'), Buffer.from(purpose), KEY_BYTES));

function redisPassword(storeUrl: string | undefined): string | undefined {
  if (!/^rediss?:\/\//i.test(storeUrl?.trim() ?? '')) return undefined;
  try {
    const password = new URL(storeUrl!.trim()).password;
    return password === '' ? undefined : decodeURIComponent(password);
  } catch {
    return undefined;
  }
}

export async function loadApprovalKey(options: { approvalKey?: string; storeUrl?: string; dataDirectory: string }): Promise<ApprovalKey> {
  if (options.approvalKey) return { key: derive(options.approvalKey, 'approval signatures v1 (setting)'), source: 'TSUKA_APPROVAL_KEY' };
  const password = redisPassword(options.storeUrl);
  if (password !== undefined) return { key: derive(password, 'approval signatures v1 (redis password)'), source: 'redis-password' };
  const url = options.storeUrl?.trim();
  if (url === 'memory' || url === 'memory://') return { key: randomBytes(KEY_BYTES), source: 'process' };
  return { key: await readOrCreateKeyFile(path.join(options.dataDirectory, APPROVAL_KEY_FILE_NAME)), source: 'key-file' };
}

async function readOrCreateKeyFile(file: string): Promise<Buffer> {
  // Written whole under another name, then linked into place: when two processes start at once
  // (`tsuka start` and a `tsuka ask`), one link wins and both read that key, never a half-written one.
  const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    await writeFile(temporary, randomBytes(KEY_BYTES).toString('base64url'), { flag: 'wx', mode: 0o600 });
    await link(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
      throw new StoreError(`Cannot create the approval signing key ${file} (${(error as Error).message}): check TSUKA_DATA_DIR.`, { cause: error });
  } finally {
    await rm(temporary, { force: true });
  }
  let text: string;
  try {
    text = (await readFile(file, 'utf8')).trim();
  } catch (error) {
    throw new StoreError(`Cannot read the approval signing key ${file} (${(error as Error).message}): check TSUKA_DATA_DIR.`, { cause: error });
  }
  const key = Buffer.from(text, 'base64url');
  if (key.length < KEY_BYTES)
    throw new StoreError(
      `The approval signing key ${file} is damaged (${key.length} bytes): delete it and start again (pending approvals are then denied), or set TSUKA_APPROVAL_KEY.`,
    );
  return key;
}
