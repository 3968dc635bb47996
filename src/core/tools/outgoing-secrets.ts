/**
 * Outgoing tool arguments never carry a known secret in plain (issue 29): before a call that sends
 * its arguments out of the process (a search query, a URL, an MCP tool's arguments) goes, they are
 * checked with the masker's `secretsIn` — every known value in every form the masker finds (plain,
 * reversed, hex, base64, wrapped across lines, cut in two by white space, %-encoded in a URL) and
 * token shapes no variable holds. A call that would send one is DANGEROUS: a person is asked, with
 * the secret's NAME and the destination (never the value); where no one can be asked, it is denied.
 */
import type { CallRisk, OutgoingCall, ToolContext } from './tool.js';

/** Every string in a JSON value — keys and values, however deep. */
export function stringsIn(value: unknown, found: string[] = []): string[] {
  if (typeof value === 'string') found.push(value);
  else if (Array.isArray(value)) for (const item of value) stringsIn(item, found);
  else if (typeof value === 'object' && value !== null)
    for (const [key, item] of Object.entries(value)) {
      found.push(key);
      stringsIn(item, found);
    }
  return found;
}

/** The host of a URL the model gave, or the text itself when it does not parse. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host || url;
  } catch (error) {
    // Not a URL: the tool refuses it when it runs; the question names what was given.
    void error;
    return url;
  }
}

function decodedForms(text: string): string[] {
  const forms = [text];
  try {
    const decoded = decodeURIComponent(text.replace(/\+/g, ' '));
    if (decoded !== text) forms.push(decoded);
  } catch (error) {
    // A malformed %-escape: only the raw form can be sent as such.
    void error;
  }
  return forms;
}

/** The names of the secrets in `texts`; a masker without `secretsIn` still tells that something is masked. */
export function outgoingSecretNames(texts: readonly string[], mask: ToolContext['maskSecrets']): string[] {
  const secretsIn = (mask as { secretsIn?: (text: string) => string[] }).secretsIn;
  const names = new Set<string>();
  for (const form of texts.flatMap(decodedForms)) {
    if (secretsIn) for (const name of secretsIn(form)) names.add(name);
    else if (mask(form) !== form) names.add('a secret');
  }
  return [...names];
}

/** DANGEROUS with the reason the person reads, when the call would send a secret; else undefined. */
export function outgoingSecretRisk(call: OutgoingCall, context: ToolContext): CallRisk | undefined {
  const names = outgoingSecretNames(call.texts, context.maskSecrets);
  if (names.length === 0) return undefined;
  const what = names.length === 1 ? `a secret (${names[0]})` : `secrets (${names.join(', ')})`;
  return { level: 'DANGEROUS', reason: `this call would send ${what} to ${call.destination}` };
}
