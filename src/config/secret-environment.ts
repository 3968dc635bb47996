/**
 * Moves secrets out of the bot's own environment once the configuration holds them in memory:
 * whatever the bot later spawns (a command in the fallback sandbox, a library's helper process)
 * cannot inherit them, and `process.env` no longer lists them. The kernel's copy of the initial
 * environment (`/proc/<pid>/environ`) is not changed by this; see the README's security section.
 */
import { isSecretName, looksLikeSecretValue } from '../core/safety/secret-patterns.js';

/** Deletes every secret-named or secret-shaped variable from `environment`; returns the names removed. */
export function removeSecretsFromEnvironment(environment: NodeJS.ProcessEnv): string[] {
  const removed: string[] = [];
  for (const [name, value] of Object.entries(environment)) {
    if (value === undefined) continue;
    if (isSecretName(name) || looksLikeSecretValue(value)) {
      delete environment[name];
      removed.push(name);
    }
  }
  return removed;
}
