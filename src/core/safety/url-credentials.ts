/**
 * Finds the password of every `scheme://user:PASSWORD@host` in a text with one forward scan
 * (no regex: a lookbehind over `scheme://user:` is quadratic on inputs such as `a.a.a.a…`).
 */

/** Where a password sits in the text: `[start, end)`. */
export interface TextRange {
  start: number;
  end: number;
}

function isLetter(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

function isSchemeCharacter(code: number): boolean {
  // [A-Za-z0-9+.-]
  return isLetter(code) || (code >= 0x30 && code <= 0x39) || code === 0x2b || code === 0x2e || code === 0x2d;
}

function isUserCharacter(code: number): boolean {
  // [^\s/:@]
  return !(code === 0x2f || code === 0x3a || code === 0x40 || isSpace(code));
}

function isPasswordCharacter(code: number): boolean {
  // [^\s/@] — a password may hold `:`.
  return !(code === 0x2f || code === 0x40 || isSpace(code));
}

function isSpace(code: number): boolean {
  return code === 0x20 || (code >= 0x09 && code <= 0x0d) || code === 0xa0 || code === 0x2028 || code === 0x2029 || code === 0xfeff;
}

/** Whether `://` at `index` follows a scheme (at least one letter-led `[A-Za-z0-9+.-]` run). */
function followsScheme(text: string, index: number): boolean {
  let start = index;
  // Each scheme run ends at its own `://`, so no character is walked back over twice.
  while (start > 0 && isSchemeCharacter(text.charCodeAt(start - 1))) start -= 1;
  if (start === index) return false;
  for (let position = start; position < index; position += 1) {
    if (isLetter(text.charCodeAt(position))) return true;
  }
  return false;
}

/**
 * The password range of each URL with credentials, in order. Linear: every character is read by
 * at most one user-info scan (the scan stops at `/`, and every `://` holds one).
 */
export function findUrlCredentials(text: string): TextRange[] {
  const ranges: TextRange[] = [];
  let from = 0;
  for (;;) {
    const marker = text.indexOf('://', from);
    if (marker === -1) return ranges;
    from = marker + 3;
    if (!followsScheme(text, marker)) continue;
    let position = from;
    while (position < text.length && isUserCharacter(text.charCodeAt(position))) position += 1;
    if (text.charCodeAt(position) !== 0x3a) continue;
    const start = position + 1;
    let end = start;
    while (end < text.length && isPasswordCharacter(text.charCodeAt(end))) end += 1;
    // The password is the run up to the last `@` before a space or `/`; a run without `@` is no credential.
    if (end === start || text.charCodeAt(end) !== 0x40) continue;
    ranges.push({ start, end });
    from = end + 1;
  }
}
