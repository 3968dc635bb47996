/**
 * Repair of near-JSON tool arguments. Small local models often emit arguments that are almost JSON:
 * wrapped in a code fence, with a trailing comma, raw newlines inside strings, single quotes, Python
 * literals, or cut off when the generation hit its token limit. Refusing those outright costs a
 * whole tool round, so the provider repairs what it safely can (the near-JSON part with the
 * `jsonrepair` library) and reports the rest, keeping a note of what was repaired.
 */
import { jsonrepair } from 'jsonrepair';

/** The outcome of `repairJsonArguments`: a parsed value (whether and how it was repaired), or why not. */
export type JsonRepairResult = { value: unknown; repaired: boolean; notes: string[] } | { error: string };

const CODE_FENCE = /^```[a-zA-Z]*\s*\n?([\s\S]*?)\s*(?:```\s*)?$/;

/** Parses tool-call argument text, repairing near-JSON when it is safe to; empty text is `{}`. */
export function repairJsonArguments(text: string): JsonRepairResult {
  const trimmed = text.trim();
  if (trimmed === '') return { value: {}, repaired: false, notes: [] };
  const direct = tryParse(trimmed);
  if (direct.ok) return unwrapEncodedObject(direct.value, []);

  const notes: string[] = [];
  const unfenced = stripCodeFence(trimmed);
  if (unfenced !== trimmed) notes.push('removed a code fence');
  const start = unfenced.search(/[[{]/);
  if (start === -1) return { error: `The arguments are not JSON: ${describeParseError(direct.error)}` };
  if (start > 0) notes.push('dropped text before the JSON');
  const candidate = unfenced.slice(start);
  const fencedOnly = tryParse(candidate);
  if (fencedOnly.ok) return unwrapEncodedObject(fencedOnly.value, notes);

  let repairedText: string;
  try {
    repairedText = jsonrepair(escapeLoneBackslashes(candidate));
  } catch (error) {
    return { error: `The arguments are not valid JSON and could not be repaired: ${describeParseError(direct.error)} (${describeParseError(error)})` };
  }
  const parsed = tryParse(repairedText);
  if (!parsed.ok) return { error: `The arguments are not valid JSON and could not be repaired: ${describeParseError(direct.error)}` };
  return unwrapEncodedObject(parsed.value, [...notes, 'repaired near-JSON (quotes, commas, literals or an unfinished end)']);
}

/** Some models JSON-encode the arguments twice (`"{\"path\": …}"`); unwrap one level. */
function unwrapEncodedObject(value: unknown, notes: string[]): { value: unknown; repaired: boolean; notes: string[] } {
  if (typeof value !== 'string' || !/^\s*[[{]/.test(value)) return { value, repaired: notes.length > 0, notes };
  const inner = tryParse(value);
  return inner.ok
    ? { value: inner.value, repaired: true, notes: [...notes, 'unwrapped arguments encoded twice'] }
    : { value, repaired: notes.length > 0, notes };
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

/**
 * A backslash before a character JSON cannot escape (`\d` in a regex) is meant literally; jsonrepair
 * would drop it, so it is doubled first. Pairs are read left to right, so `\\d` stays as it is.
 */
function escapeLoneBackslashes(text: string): string {
  return text.replace(/\\([\s\S]?)/g, (pair, next: string) => (next !== '' && '"\\/bfnrtu\''.includes(next) ? pair : `\\\\${next}`));
}

function stripCodeFence(text: string): string {
  if (!text.startsWith('```')) return text;
  const match = CODE_FENCE.exec(text);
  return match?.[1] ?? text;
}
