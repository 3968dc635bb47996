/**
 * The secrets an MCP entry carries itself — not in the bot's environment, so the masker built from
 * the environment alone would not know them. They join the global masker at start (and each entry's
 * own masker), so a server that writes its token into the workspace, or echoes it, is masked
 * wherever the text goes.
 *
 * The rule is the one for the bot's own variables (`collectNamedSecrets`): an `env` value whose
 * NAME says secret (`*TOKEN*`, `*KEY*`, `*SECRET*`, `*PASSWORD*`, `*AUTH*`…) or whose VALUE has a
 * token's shape or carries URL credentials; a header named `Authorization`, `Proxy-Authorization`,
 * `Cookie` or with a secret name (`X-Api-Key`), or whose value has a token's shape (with and without
 * its `Bearer`/`Basic`/`Token` prefix); the password and the secret-named query parameters of an
 * HTTP server's URL. Values shorter than `MIN_MASKED_SECRET_LENGTH` are left out, as everywhere.
 */
import type { NamedSecret } from '../../safety/secret-mask.js';
import { isSecretName, looksLikeSecretValue } from '../../safety/secret-patterns.js';
import { findUrlCredentials } from '../../safety/url-credentials.js';
import type { McpServerConfig } from './mcp-config.js';

const CREDENTIAL_HEADER = /^(authorization|proxy-authorization|cookie)$/i;
const AUTH_SCHEME = /^(Bearer|Basic|Token)\s+/i;

function valueSecrets(name: string, value: string, secretName: boolean): NamedSecret[] {
  const secrets: NamedSecret[] = [];
  if (secretName || looksLikeSecretValue(value)) secrets.push({ name, value });
  for (const range of findUrlCredentials(value)) secrets.push({ name, value: value.slice(range.start, range.end) });
  return secrets;
}

function headerSecrets(server: string, headers: Record<string, string>): NamedSecret[] {
  return Object.entries(headers).flatMap(([header, value]) => {
    const name = `header ${header} of the MCP server ${server}`;
    const secretName = CREDENTIAL_HEADER.test(header) || isSecretName(header.replace(/-/g, '_'));
    const bare = value.replace(AUTH_SCHEME, '');
    return [...valueSecrets(name, value, secretName), ...(bare !== value ? valueSecrets(name, bare, secretName) : [])];
  });
}

function urlSecrets(server: string, url: string): NamedSecret[] {
  const name = `URL of the MCP server ${server}`;
  const secrets = valueSecrets(name, url, false);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (error) {
    // The file's schema already requires http(s) URLs; one that still does not parse has no parameters to read.
    void error;
    return secrets;
  }
  for (const [parameter, value] of parsed.searchParams) if (isSecretName(parameter.replace(/-/g, '_'))) secrets.push({ name, value });
  return secrets;
}

/** The secrets of every entry, named `MY_SERVICE_TOKEN (MCP server github)` and the like. */
export function mcpEntrySecrets(servers: readonly McpServerConfig[]): NamedSecret[] {
  return servers.flatMap((server) => {
    if (server.transport === 'stdio')
      return Object.entries(server.env).flatMap(([name, value]) => valueSecrets(`${name} (MCP server ${server.name})`, value, isSecretName(name)));
    return [...headerSecrets(server.name, server.headers), ...urlSecrets(server.name, server.url)];
  });
}
