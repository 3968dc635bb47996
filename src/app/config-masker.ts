/**
 * The one secret masker of a process, built from the configuration: the secrets of the bot's
 * environment plus those each MCP entry carries itself (`mcp-secrets.ts`), so a server's token
 * written into the workspace or echoed anywhere is masked in what is posted, logged and stored.
 */
import type { AppConfig } from '../config/app-config.js';
import { createSecretMasker, type SecretMasker } from '../core/safety/secret-mask.js';
import { mcpEntrySecrets } from '../core/tools/mcp/mcp-secrets.js';

export function createConfigMasker(config: Pick<AppConfig, 'environment' | 'mcp'>): SecretMasker {
  return createSecretMasker(config.environment, mcpEntrySecrets(config.mcp.servers));
}
