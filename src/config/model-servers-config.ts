/**
 * `TSUKA_LLM_BASE_URL`: one OpenAI-compatible base URL, or several servers serving the same model,
 * comma-separated. Every entry is trimmed and must be an http(s) URL; each is binding (no other
 * server is ever used). The first listed is the primary: its answer names the provider and model.
 */

const EXAMPLE = 'http://127.0.0.1:11434/v1';

/**
 * Parses the setting's raw value into the list of servers (trailing slashes removed, so one server
 * has one name everywhere: slots, health, logs). Problems are pushed one line each; bad entries are
 * left out. Empty entries (a trailing comma) are ignored.
 */
export function parseModelServerUrls(raw: string | undefined, problems: string[], name = 'TSUKA_LLM_BASE_URL'): string[] {
  if (raw === undefined) return [];
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0) return [];
  const single = entries.length === 1;
  const servers: string[] = [];
  entries.forEach((entry, index) => {
    if (!isHttpUrl(entry)) {
      problems.push(
        single
          ? `${name}="${raw}" is not a valid http(s) URL: use e.g. ${EXAMPLE}.`
          : `${name} entry ${index + 1} ("${entry}") is not a valid http(s) URL: list servers as ${EXAMPLE},http://10.0.0.2:11434/v1.`,
      );
      return;
    }
    const server = entry.replace(/\/+$/, '');
    if (servers.includes(server)) {
      problems.push(`${name} lists ${server} twice: list each model server once.`);
      return;
    }
    servers.push(server);
  });
  return servers;
}

function isHttpUrl(value: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}
