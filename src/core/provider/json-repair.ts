/**
 * Repair of near-JSON tool arguments. Small local models often emit arguments that are almost JSON:
 * wrapped in a code fence, with a trailing comma, raw newlines inside strings, single quotes, or cut
 * off when the generation hit its token limit. Refusing those outright costs a whole tool round, so
 * the provider repairs what it safely can and reports the rest.
 */

/** The outcome of `repairJsonArguments`: a parsed value (and whether it needed repair), or why not. */
export type JsonRepairResult = { value: unknown; repaired: boolean } | { error: string };

const CODE_FENCE = /^```[a-zA-Z]*\s*\n?([\s\S]*?)\s*(?:```\s*)?$/;
const PYTHON_LITERALS: Record<string, string> = { True: 'true', False: 'false', None: 'null' };

/** Parses tool-call argument text, repairing near-JSON when it is safe to; empty text is `{}`. */
export function repairJsonArguments(text: string): JsonRepairResult {
  const trimmed = text.trim();
  if (trimmed === '') return { value: {}, repaired: false };
  const direct = tryParse(trimmed);
  if (direct.ok) return unwrapEncodedObject(direct.value, false);

  const unfenced = stripCodeFence(trimmed);
  const start = unfenced.search(/[[{]/);
  if (start === -1) return { error: `The arguments are not JSON: ${describeParseError(direct.error)}` };
  const candidate = unfenced.slice(start);
  const fencedOnly = tryParse(candidate);
  if (fencedOnly.ok) return unwrapEncodedObject(fencedOnly.value, true);

  const rewritten = rewriteNearJson(candidate);
  for (const attempt of [rewritten.closed, rewritten.fallback]) {
    if (attempt === undefined) continue;
    const parsed = tryParse(attempt);
    if (parsed.ok) return unwrapEncodedObject(parsed.value, true);
  }
  return { error: `The arguments are not valid JSON and could not be repaired: ${describeParseError(direct.error)}` };
}

/** Some models JSON-encode the arguments twice (`"{\"path\": …}"`); unwrap one level. */
function unwrapEncodedObject(value: unknown, repaired: boolean): { value: unknown; repaired: boolean } {
  if (typeof value !== 'string' || !/^\s*[[{]/.test(value)) return { value, repaired };
  const inner = tryParse(value);
  return inner.ok ? { value: inner.value, repaired: true } : { value, repaired };
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false; error: unknown } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, error };
  }
}

function describeParseError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function stripCodeFence(text: string): string {
  if (!text.startsWith('```')) return text;
  const match = CODE_FENCE.exec(text);
  return match?.[1] ?? text;
}

interface Checkpoint {
  length: number;
  stack: string[];
}

/**
 * One pass over the text that re-emits it as JSON: strings are re-quoted with double quotes and
 * control characters escaped, trailing commas dropped, bare keys quoted, and whatever is open at the
 * end closed. `fallback` cuts back to the last complete value, for text cut off mid-key.
 */
function rewriteNearJson(text: string): { closed: string; fallback?: string } {
  let out = '';
  const stack: string[] = [];
  let checkpoint: Checkpoint | undefined;
  let index = 0;
  const markValueEnd = (): void => {
    checkpoint = { length: out.length, stack: [...stack] };
  };

  while (index < text.length) {
    const char = text[index]!;
    if (char === '"' || (char === "'" && atTokenStart(out))) {
      const { json, end, closed } = readString(text, index, char);
      out += json;
      index = end;
      if (!closed) break;
      if (!isKeyPosition(text, index)) markValueEnd();
      continue;
    }
    if (char === '{' || char === '[') {
      stack.push(char === '{' ? '}' : ']');
      out += char;
    } else if (char === '}' || char === ']') {
      out = out.replace(/,\s*$/, '');
      while (stack.length > 0 && stack[stack.length - 1] !== char) out += stack.pop();
      stack.pop();
      out += char;
      markValueEnd();
      if (stack.length === 0) break;
    } else if (/[A-Za-z_$]/.test(char)) {
      const word = /^[A-Za-z_$][\w$-]*/.exec(text.slice(index))![0];
      index += word.length;
      if (stack[stack.length - 1] === '}' && /[{,]\s*$/.test(out)) out += JSON.stringify(word);
      else out += Object.hasOwn(PYTHON_LITERALS, word) ? PYTHON_LITERALS[word]! : word;
      if (!isKeyPosition(text, index)) markValueEnd();
      continue;
    } else {
      out += char;
      if (/[\d.eE+-]/.test(char) && !/[\d.eE+-]/.test(text[index + 1] ?? '')) markValueEnd();
    }
    index += 1;
  }

  const closers = [...stack].reverse().join('');
  let body = out.replace(/,\s*$/, '');
  if (/:\s*$/.test(body)) body += 'null';
  const closed = body + closers;
  const fallback = checkpoint
    ? out.slice(0, checkpoint.length).replace(/,\s*$/, '') + [...checkpoint.stack].reverse().join('')
    : undefined;
  return { closed, fallback };
}

function atTokenStart(out: string): boolean {
  return /(^|[{[,:])\s*$/.test(out);
}

function isKeyPosition(text: string, index: number): boolean {
  return /^\s*:/.test(text.slice(index, index + 64));
}

/** Reads a string starting at `start` (quoted with `quote`) and returns it as a JSON string literal. */
function readString(text: string, start: number, quote: string): { json: string; end: number; closed: boolean } {
  let value = '';
  let index = start + 1;
  while (index < text.length) {
    const char = text[index]!;
    if (char === '\\') {
      const next = text[index + 1];
      if (next === undefined) {
        index += 1;
        break;
      }
      if (next === "'" && quote === "'") value += "'";
      else value += escapeSequenceValue(text, index);
      index += next === 'u' ? 6 : 2;
      continue;
    }
    if (char === quote) return { json: JSON.stringify(value), end: index + 1, closed: true };
    value += char;
    index += 1;
  }
  return { json: JSON.stringify(value), end: index, closed: false };
}

function escapeSequenceValue(text: string, index: number): string {
  const next = text[index + 1]!;
  if (next === 'u') {
    const hex = text.slice(index + 2, index + 6);
    return /^[0-9a-fA-F]{4}$/.test(hex) ? String.fromCharCode(parseInt(hex, 16)) : '';
  }
  const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', '/': '/', '\\': '\\', '"': '"' };
  // An unknown escape (`\d` in a regex) most likely meant a literal backslash.
  return simple[next] ?? `\\${next}`;
}
