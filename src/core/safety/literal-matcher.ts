/**
 * Finds many literal strings in one pass: an Aho–Corasick automaton compiled to a transition
 * table, so each character of the text costs two array reads whatever the number of patterns
 * (a regex alternation of hundreds of literals does not scale that way). Line breaks are
 * skipped while matching, so a secret's base64 or hex wrapped by `base64` (76 columns) or
 * `xxd -p` (60 columns) is still found; the reported range then spans the break.
 */
import type { TextRange } from './url-credentials.js';

export interface LiteralMatcher {
  /** Ranges of every occurrence, the longest one ending at each position; in order of their end. */
  findAll(text: string): TextRange[];
}

const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const UTF16_UNITS = 0x10000;

export function createLiteralMatcher(patterns: Iterable<string>): LiteralMatcher {
  // Symbol 0 stands for every character no pattern uses.
  const symbolOf = new Int32Array(UTF16_UNITS);
  let symbols = 1;
  const children: Map<number, number>[] = [new Map()];
  const outputLength: number[] = [0];
  let longest = 0;
  for (const pattern of patterns) {
    if (pattern === '') continue;
    let node = 0;
    for (let index = 0; index < pattern.length; index += 1) {
      const code = pattern.charCodeAt(index);
      if (symbolOf[code] === 0) symbolOf[code] = symbols++;
      const symbol = symbolOf[code]!;
      let child = children[node]!.get(symbol);
      if (child === undefined) {
        child = children.length;
        children.push(new Map());
        outputLength.push(0);
        children[node]!.set(symbol, child);
      }
      node = child;
    }
    outputLength[node] = Math.max(outputLength[node]!, pattern.length);
    longest = Math.max(longest, pattern.length);
  }

  // The full transition table, breadth first: a missing edge goes where the failure link's edge goes.
  const table = new Int32Array(children.length * symbols);
  const failure = new Int32Array(children.length);
  const queue: number[] = [];
  for (const [symbol, child] of children[0]!) {
    table[symbol] = child;
    queue.push(child);
  }
  for (let head = 0; head < queue.length; head += 1) {
    const node = queue[head]!;
    const fallback = failure[node]!;
    outputLength[node] = Math.max(outputLength[node]!, outputLength[fallback]!);
    for (let symbol = 1; symbol < symbols; symbol += 1) {
      const child = children[node]!.get(symbol);
      if (child === undefined) {
        table[node * symbols + symbol] = table[fallback * symbols + symbol]!;
        continue;
      }
      failure[child] = table[fallback * symbols + symbol]!;
      table[node * symbols + symbol] = child;
      queue.push(child);
    }
  }
  const outputs = Int32Array.from(outputLength);

  return {
    findAll(text: string): TextRange[] {
      const ranges: TextRange[] = [];
      if (longest === 0) return ranges;
      // Positions of the last characters consumed (line breaks are not), in a ring of 2^k ≥ longest.
      const ringMask = 2 ** Math.ceil(Math.log2(longest + 1)) - 1;
      const consumed = new Int32Array(ringMask + 1);
      let count = 0;
      let state = 0;
      for (let index = 0; index < text.length; index += 1) {
        const code = text.charCodeAt(index);
        if (code === LINE_FEED || code === CARRIAGE_RETURN) continue;
        consumed[count & ringMask] = index;
        count += 1;
        state = table[state * symbols + symbolOf[code]!]!;
        const length = outputs[state]!;
        if (length > 0) ranges.push({ start: consumed[(count - length) & ringMask]!, end: index + 1 });
      }
      return ranges;
    },
  };
}
