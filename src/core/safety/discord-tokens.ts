/**
 * Finds Discord bot tokens (`<24+ chars>.<6 chars>.<27+ chars>` of `[A-Za-z0-9_-]`) with a forward
 * scan anchored on the rare middle part. The equivalent regex has to be tried at the start of
 * every word, which made it most of the masker's time on ordinary text.
 */
import type { TextRange } from './url-credentials.js';

const DOT = 0x2e;
const MIDDLE_LENGTH = 6;
const FIRST_PART_MIN = 24;
const LAST_PART_MIN = 27;

function isTokenCharacter(code: number): boolean {
  // [A-Za-z0-9_-]
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x5f || code === 0x2d;
}

/** Ranges of Discord-token-shaped words, in order. Linear: each run is walked by at most one middle. */
export function findDiscordTokens(text: string): TextRange[] {
  const ranges: TextRange[] = [];
  let firstDot = text.indexOf('.');
  while (firstDot !== -1) {
    const secondDot = firstDot + MIDDLE_LENGTH + 1;
    if (!isMiddle(text, firstDot, secondDot)) {
      firstDot = text.indexOf('.', firstDot + 1);
      continue;
    }
    let start = firstDot;
    while (start > 0 && isTokenCharacter(text.charCodeAt(start - 1))) start -= 1;
    let end = secondDot + 1;
    while (end < text.length && isTokenCharacter(text.charCodeAt(end))) end += 1;
    if (firstDot - start >= FIRST_PART_MIN && end - secondDot - 1 >= LAST_PART_MIN) {
      ranges.push({ start, end });
      firstDot = text.indexOf('.', end);
    } else {
      // The second dot may open the next token's middle.
      firstDot = secondDot;
    }
  }
  return ranges;
}

/** Whether `text` holds `.` + six token characters + `.` from `firstDot` to `secondDot`. */
function isMiddle(text: string, firstDot: number, secondDot: number): boolean {
  if (text.charCodeAt(secondDot) !== DOT) return false;
  for (let index = firstDot + 1; index < secondDot; index += 1) if (!isTokenCharacter(text.charCodeAt(index))) return false;
  return true;
}
