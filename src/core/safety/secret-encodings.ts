/**
 * The forms a secret takes when a command re-encodes it (`base64`, `basenc --base64url`,
 * `xxd -p`, `od`-free hex dumps, `rev`), so that the masker can look for each of them.
 */

/** Shorter encoded fragments are too likely to occur by chance to mask. */
const MIN_ENCODED_LENGTH = 6;

const BASE64_CHARS_PER_BYTE = 8 / 6;

function toBase64Url(base64: string): string {
  return base64.replace(/\+/g, '-').replace(/\//g, '_');
}

/**
 * The base64 characters that depend only on the secret's bytes when it starts `offset` bytes
 * into a 3-byte group of a longer stream (as in `base64 /proc/PID/environ`): the characters
 * that also cover a neighbouring byte differ from stream to stream and are left out.
 */
function stableBase64(bytes: Buffer, offset: 0 | 1 | 2): string {
  const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
  const first = Math.ceil(offset * BASE64_CHARS_PER_BYTE);
  const last = Math.floor((offset + bytes.length) * BASE64_CHARS_PER_BYTE);
  return encoded.slice(first, last);
}

/** Reverses by code point, as `rev` does with UTF-8 text. */
function reversed(value: string): string {
  return Array.from(value).reverse().join('');
}

/**
 * Every form of `value` worth masking: the value itself, reversed, hex (lower and upper case),
 * and base64 and base64url at each of the three byte alignments.
 */
export function encodedForms(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const hex = bytes.toString('hex');
  const forms = new Set<string>([value, reversed(value), hex, hex.toUpperCase()]);
  for (const offset of [0, 1, 2] as const) {
    const base64 = stableBase64(bytes, offset);
    forms.add(base64);
    forms.add(toBase64Url(base64));
  }
  return [...forms].filter((form) => form.length >= MIN_ENCODED_LENGTH);
}
