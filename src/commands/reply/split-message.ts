/**
 * Splits a long reply into parts that fit a platform's message limit: at a paragraph break if
 * possible, else a line break, else a space; never inside a fenced code block — a fence open at
 * the cut is closed in this part and reopened (same language) in the next.
 */
const FENCE = /^\s*(```|~~~)(.*)$/;

interface FenceState {
  open: boolean;
  marker: string;
  info: string;
}

function fenceStateAfter(text: string, initial: FenceState): FenceState {
  const state = { ...initial };
  for (const line of text.split('\n')) {
    const match = FENCE.exec(line);
    if (!match) continue;
    if (!state.open) {
      state.open = true;
      state.marker = match[1]!;
      state.info = match[2]!.trim();
    } else if (match[1] === state.marker && match[2]!.trim() === '') {
      state.open = false;
    }
  }
  return state;
}

function cutPoint(text: string, limit: number, atLeast: number): number {
  const window = text.slice(0, limit);
  const minimum = Math.max(Math.floor(limit * 0.5), Math.min(atLeast, limit));
  for (const separator of ['\n\n', '\n', ' ']) {
    const index = window.lastIndexOf(separator);
    if (index >= minimum) return index + separator.length;
  }
  return limit;
}

/** `firstCutAtLeast`: the first part keeps at least this many characters (text a stream already shows). */
export function splitMessage(text: string, maxLength: number, firstCutAtLeast = 0): string[] {
  if (maxLength < 40) throw new RangeError('maxLength must be at least 40');
  const parts: string[] = [];
  let rest = text;
  let state: FenceState = { open: false, marker: '```', info: '' };
  while (rest.length > maxLength) {
    // Room for a closing fence that may have to be added to this part.
    const budget = maxLength - 4;
    const cut = cutPoint(rest, budget, parts.length === 0 ? firstCutAtLeast : 0);
    let part = rest.slice(0, cut);
    rest = rest.slice(cut);
    const after = fenceStateAfter(part, state);
    if (after.open) {
      part = `${part.replace(/\n?$/, '\n')}${after.marker}`;
      rest = `${after.marker}${after.info}\n${rest.replace(/^\n/, '')}`;
      state = { ...after, open: false };
    } else {
      state = after;
    }
    parts.push(part.replace(/\s+$/, ''));
    rest = rest.replace(/^\n+/, '');
  }
  if (rest.trim().length > 0 || parts.length === 0) parts.push(rest);
  return parts;
}
