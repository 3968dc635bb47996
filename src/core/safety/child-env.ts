/**
 * The environment child processes get (design §6.9): the ordinary variables a build needs,
 * without the bot's tokens or anything that looks like a secret.
 */
import { isSecretName, looksLikeSecretValue } from './secret-patterns.js';

export { isSecretName } from './secret-patterns.js';

/**
 * A copy of `env` without secret-named variables and without variables whose value has the shape
 * of a token (e.g. `DATABASE_URL=postgres://app:pw@db`).
 */
export function createChildEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const childEnv: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (isSecretName(name) || looksLikeSecretValue(value)) continue;
    childEnv[name] = value;
  }
  return childEnv;
}
