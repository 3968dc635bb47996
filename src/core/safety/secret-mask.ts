/**
 * Hides secrets in text before it is posted, logged or stored (design §6.9): every secret value
 * — of secret-named variables, of token-shaped values, and the password of any URL-valued
 * variable — in its plain, reversed, hex, base64 and base64url forms, and well-known token
 * shapes, become `[secret masked]`.
 *
 * Linear on any input: known values are found by one Aho–Corasick pass, URL passwords and
 * Discord tokens by forward scans, and the token-shape regexes run over windows of `MASK_WINDOW_CHARS` with an
 * overlap of `MASK_OVERLAP_CHARS`, so a shape split across a window boundary is still found
 * whole and no regex ever sees more than one window (a huge input cannot exhaust its stack).
 */
import { findDiscordTokens } from './discord-tokens.js';
import { createLiteralMatcher, type LiteralMatcher } from './literal-matcher.js';
import { encodedForms } from './secret-encodings.js';
import { BEARER_TOKEN_SOURCE, isSecretName, looksLikeSecretValue, SECRET_SHAPE_SOURCES } from './secret-patterns.js';
import { findUrlCredentials, type TextRange } from './url-credentials.js';

/** Shorter values are too likely to be ordinary words (`true`, `admin`) to mask everywhere. */
export const MIN_MASKED_SECRET_LENGTH = 6;

export const SECRET_MASK = '[secret masked]';

/** How much text one pass of the shape regexes sees. */
export const MASK_WINDOW_CHARS = 256 * 1024;
/** How far each window reads past its end, so a token cut by the boundary is matched whole. */
export const MASK_OVERLAP_CHARS = 8 * 1024;

const PRIVATE_KEY_END = /-----END [A-Z ]*PRIVATE KEY-----/;

/**
 * Texts this long or longer are remembered with their masked form. One tool output is masked where
 * the tool returns it, again in the run's transcript, the thread's task card and the saved session:
 * each later pass finds it here (a text without secrets is its own masked form).
 */
const REMEMBERED_MIN_CHARS = 512;
/** At most this many characters of remembered texts, the least recently used forgotten first. */
const REMEMBERED_MAX_CHARS = 2 * 1024 * 1024;

/** A small LRU of masked texts, bounded by the characters it holds. */
function createMaskMemo(): { get(text: string): string | undefined; set(text: string, masked: string): void } {
  const entries = new Map<string, string>();
  let chars = 0;
  return {
    get(text) {
      const masked = entries.get(text);
      if (masked !== undefined) {
        entries.delete(text);
        entries.set(text, masked);
      }
      return masked;
    },
    set(text, masked) {
      if (text.length > REMEMBERED_MAX_CHARS / 4 || entries.has(text)) return;
      entries.set(text, masked);
      chars += text.length + (masked === text ? 0 : masked.length);
      for (const [oldest, value] of entries) {
        if (chars <= REMEMBERED_MAX_CHARS) break;
        entries.delete(oldest);
        chars -= oldest.length + (value === oldest ? 0 : value.length);
      }
    },
  };
}

function safelyDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    // A malformed %-escape: the raw form is the only one that can appear.
    return text;
  }
}

/** A secret known by value, with the name messages use for it (never the value). */
export interface NamedSecret {
  name: string;
  value: string;
}

/** What `secretsIn` calls a value that only looks like a secret (no known variable holds it). */
export const UNNAMED_SECRET = 'a value that looks like a token or password';

/** The masking function, which can also say which known secrets a text carries. */
export interface SecretMasker {
  (text: string): string;
  /**
   * The names of the known secrets in `text` in any form the masker finds (plain, encoded, wrapped
   * across lines, split by white space), then `UNNAMED_SECRET` for token shapes and URL passwords
   * no variable holds; empty when the text carries none.
   */
  secretsIn(text: string): string[];
}

/** Every known secret value with the names of the variables (or entries) that hold it. */
export function collectNamedSecrets(env: NodeJS.ProcessEnv, extraSecrets: readonly (string | NamedSecret)[] = []): Map<string, Set<string>> {
  const values = new Map<string, Set<string>>();
  const add = (value: string, name: string): void => {
    if (value.length < MIN_MASKED_SECRET_LENGTH) return;
    const names = values.get(value) ?? new Set<string>();
    names.add(name);
    values.set(value, names);
  };
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || value === '') continue;
    if (isSecretName(name) || looksLikeSecretValue(value)) add(value, name);
    for (const range of findUrlCredentials(value)) {
      const password = value.slice(range.start, range.end);
      add(password, name);
      add(safelyDecoded(password), name);
    }
  }
  for (const secret of extraSecrets) {
    if (typeof secret === 'string') add(secret, 'a configured secret');
    else add(secret.value, secret.name);
  }
  return values;
}

/** The secret values known from the environment and the extra list, by the rules above. */
export function collectSecretValues(env: NodeJS.ProcessEnv, extraSecrets: readonly (string | NamedSecret)[] = []): Set<string> {
  return new Set(collectNamedSecrets(env, extraSecrets).keys());
}

/** Ranges of token shapes in `text[from, to)`, as absolute positions. */
function shapeRanges(text: string, from: number, to: number, shapes: RegExp, bearer: RegExp): TextRange[] {
  const window = text.slice(from, to);
  const ranges: TextRange[] = [];
  shapes.lastIndex = 0;
  for (let match = shapes.exec(window); match; match = shapes.exec(window)) {
    if (match[0] === '') {
      shapes.lastIndex += 1;
      continue;
    }
    ranges.push({ start: from + match.index, end: from + match.index + match[0].length });
  }
  bearer.lastIndex = 0;
  for (let match = bearer.exec(window); match; match = bearer.exec(window)) {
    const token = match[1] ?? '';
    const end = from + match.index + match[0].length;
    ranges.push({ start: end - token.length, end });
  }
  return ranges;
}

/** Token shapes over the whole text, window by window; a private key cut by a window runs on. */
function allShapeRanges(text: string, shapes: RegExp, bearer: RegExp): TextRange[] {
  const ranges: TextRange[] = [];
  let start = 0;
  while (start < text.length) {
    const acceptEnd = Math.min(text.length, start + MASK_WINDOW_CHARS);
    const readEnd = Math.min(text.length, acceptEnd + MASK_OVERLAP_CHARS);
    let nextStart = acceptEnd;
    for (const range of shapeRanges(text, start, readEnd, shapes, bearer)) {
      if (range.start >= acceptEnd) continue;
      ranges.push(range);
      nextStart = Math.max(nextStart, range.end);
    }
    // A private key block that reaches the end of what was read without its END line goes on
    // being masked until its END line (or the end of the text).
    const last = ranges[ranges.length - 1];
    if (
      last &&
      last.end === readEnd &&
      readEnd < text.length &&
      text.startsWith('-----BEGIN', last.start) &&
      !PRIVATE_KEY_END.test(text.slice(last.start, last.end))
    ) {
      const rest = text.slice(readEnd);
      const end = PRIVATE_KEY_END.exec(rest);
      last.end = end ? readEnd + end.index + end[0].length : text.length;
      nextStart = last.end;
    }
    start = nextStart;
  }
  return ranges;
}

function applyMask(text: string, ranges: TextRange[]): string {
  if (ranges.length === 0) return text;
  ranges.sort((a, b) => a.start - b.start || b.end - a.end);
  const parts: string[] = [];
  let position = 0;
  let current: TextRange | undefined;
  for (const range of ranges) {
    if (current && range.start <= current.end) {
      current.end = Math.max(current.end, range.end);
      continue;
    }
    if (current) {
      parts.push(text.slice(position, current.start), SECRET_MASK);
      position = current.end;
    }
    current = { ...range };
  }
  if (current) parts.push(text.slice(position, current.start), SECRET_MASK);
  parts.push(text.slice(current ? current.end : position));
  return parts.join('');
}

/**
 * Builds the masking function once. It never throws: if a detector fails on some input, the
 * whole text is withheld rather than passed on unmasked.
 */
export function createSecretMasker(env: NodeJS.ProcessEnv, extraSecrets: readonly (string | NamedSecret)[] = []): SecretMasker {
  /** Each form of each known value, with the names of the secrets it is a form of. */
  const forms = new Map<string, Set<string>>();
  for (const [value, names] of collectNamedSecrets(env, extraSecrets)) {
    for (const form of encodedForms(value)) {
      const known = forms.get(form) ?? new Set<string>();
      for (const name of names) known.add(name);
      forms.set(form, known);
    }
  }
  const literals: LiteralMatcher = createLiteralMatcher(forms.keys());
  const shapes = new RegExp(SECRET_SHAPE_SOURCES.join('|'), 'g');
  const bearer = new RegExp(BEARER_TOKEN_SOURCE, 'g');
  const memo = createMaskMemo();
  const mask = (text: string): string => {
    if (typeof text !== 'string' || text === '') return text;
    const remembered = text.length >= REMEMBERED_MIN_CHARS ? memo.get(text) : undefined;
    if (remembered !== undefined) return remembered;
    try {
      const masked = applyMask(text, [
        ...literals.findAll(text),
        ...findUrlCredentials(text),
        ...findDiscordTokens(text),
        ...allShapeRanges(text, shapes, bearer),
      ]);
      if (text.length >= REMEMBERED_MIN_CHARS) memo.set(text, masked);
      return masked;
    } catch {
      return `${SECRET_MASK} (this text could not be checked for secrets, so it is withheld)`;
    }
  };
  /** Names of the known values in `text`; the matcher skips line breaks, so a match may span one. */
  const knownIn = (text: string, names: Set<string>): void => {
    for (const range of literals.findAll(text)) {
      for (const name of forms.get(text.slice(range.start, range.end).replace(/[\r\n]/g, '')) ?? []) names.add(name);
    }
  };
  const secretsIn = (text: string): string[] => {
    if (typeof text !== 'string' || text === '') return [];
    const names = new Set<string>();
    knownIn(text, names);
    // A value cut in two and joined with a space or a line break ("abc def") is still the value.
    const compact = text.replace(/\s+/g, '');
    if (compact !== text) knownIn(compact, names);
    if (names.size === 0 && mask(text) !== text) names.add(UNNAMED_SECRET);
    return [...names];
  };
  return Object.assign(mask, { secretsIn });
}
