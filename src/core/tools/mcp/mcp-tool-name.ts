/**
 * Names of MCP tools in the catalogue: `mcp__<server>__<tool>`, which keeps the server visible and
 * fits the model APIs' rule `^[a-zA-Z0-9_-]{1,64}$`. Characters outside that set become `_`; a name
 * longer than 64 is cut and ends with `_` and 6 hex digits of a hash of the full name, so two long
 * names never collide silently.
 */
import { createHash } from 'node:crypto';

export const MCP_TOOL_PREFIX = 'mcp__';
export const MODEL_TOOL_NAME_MAX_LENGTH = 64;
const HASH_LENGTH = 6;

export function mcpToolName(server: string, tool: string): string {
  const full = `${MCP_TOOL_PREFIX}${server}__${tool}`;
  const safe = full.replace(/[^a-zA-Z0-9_-]/g, '_');
  if (safe.length <= MODEL_TOOL_NAME_MAX_LENGTH && safe === full) return safe;
  const hash = createHash('sha256').update(full).digest('hex').slice(0, HASH_LENGTH);
  return `${safe.slice(0, MODEL_TOOL_NAME_MAX_LENGTH - HASH_LENGTH - 1)}_${hash}`;
}

/** True for names in the MCP part of the catalogue. */
export function isMcpToolName(name: string): boolean {
  return name.startsWith(MCP_TOOL_PREFIX);
}
