/**
 * Hides secrets in text before it is posted or stored (design §6.9): the values of secret-named
 * variables and well-known token shapes become `[secret masked]`.
 */
import { isSecretName, SECRET_SHAPE_SOURCES } from './secret-patterns.js';

/** Shorter values are too likely to be ordinary words (`true`, `admin`) to mask everywhere. */
export const MIN_MASKED_SECRET_LENGTH = 6;

export const SECRET_MASK = '[secret masked]';

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}

/**
 * Builds the masking function once: one combined regex of every known secret value (longest
 * first, so a value containing another is masked whole) and every token shape.
 */
export function createSecretMasker(env: NodeJS.ProcessEnv, extraSecrets: string[] = []): (text: string) => string {
  const values = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && isSecretName(name) && value.length >= MIN_MASKED_SECRET_LENGTH) values.add(value);
  }
  for (const secret of extraSecrets) {
    if (secret.length >= MIN_MASKED_SECRET_LENGTH) values.add(secret);
  }
  const literalSources = [...values].sort((a, b) => b.length - a.length).map(escapeRegExp);
  const combined = new RegExp([...literalSources, ...SECRET_SHAPE_SOURCES].join('|'), 'g');
  return (text: string) => text.replace(combined, SECRET_MASK);
}
