/**
 * The playground's per-start access key. The playground has no login: it trusts this machine. But
 * "this machine" includes every command an agent runs, and those can reach 127.0.0.1 and fetch the
 * page too — so whatever the page's first GET returns (HTML, a cookie) is theirs as well. The key
 * therefore reaches the browser by another path: the link `tsuka start` prints on its terminal,
 * `http://127.0.0.1:<port>/#k=<key>` (like Jupyter's token). The fragment is never sent to the
 * server nor in a Referer; the page moves it into sessionStorage (per origin, port included — a
 * cookie would also go to every other port of 127.0.0.1), removes it from the address bar, and
 * sends it in the `x-tsuka-key` header of every API call. The key is made from crypto-random bytes
 * at each start, kept in memory only: never written to disk, never put in an environment, so no
 * child process inherits it; a restart makes a new one (open the new link).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';

export const ACCESS_KEY_HEADER = 'x-tsuka-key';

/** 32 random bytes, base64url (43 characters). */
export function createAccessKey(): string {
  return randomBytes(32).toString('base64url');
}

/** The link to open: the page, with the key in the fragment. */
export function playgroundStartUrl(port: number, accessKey: string): string {
  return `http://127.0.0.1:${port}/#k=${accessKey}`;
}

const MISSING = 'this playground request needs the access key: open the link printed by `tsuka start` (http://127.0.0.1:<port>/#k=…)';
const WRONG = 'wrong access key (TSUKA was restarted?): open the link `tsuka start` printed last';

/** Why a request's key is refused (401 none, 403 wrong), or undefined when it is this start's key. */
export function checkAccessKey(given: string | string[] | undefined, accessKey: string): { status: number; reason: string } | undefined {
  if (typeof given !== 'string' || given === '') return { status: 401, reason: MISSING };
  const a = Buffer.from(given);
  const b = Buffer.from(accessKey);
  if (a.length !== b.length || !timingSafeEqual(a, b)) return { status: 403, reason: WRONG };
  return undefined;
}
