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

/** What every tool name of the server `server` starts with (server names are already in the safe set). */
export const mcpNamespace = (server: string): string => `${MCP_TOOL_PREFIX}${server}__`;

/** An entry left out because its tool names could be another entry's. */
export interface ShadowingEntry<T> {
  server: T;
  /** The entry whose names it could produce, which keeps them. */
  shadowed: string;
}

/**
 * Two entries can produce one name exactly when one namespace starts with the other
 * (`mcp__a__` and `mcp__a__b__`: `a` + `b__c` and `a__b` + `c`; `mcp__a__` and `mcp__a___`: `a` +
 * `_c` and `a_` + `c`), since names longer than 64 are cut after the namespace (server names have
 * at most 24 characters). The entry with the longer namespace is refused — whatever the order in
 * the file or of their start-ups — and the other keeps its names; among the kept, no name can clash.
 */
export function refuseShadowingEntries<T extends { name: string }>(servers: readonly T[]): { kept: T[]; refused: ShadowingEntry<T>[] } {
  const kept: T[] = [];
  const refused: ShadowingEntry<T>[] = [];
  for (const server of servers) {
    const inside = servers.find((other) => other.name !== server.name && mcpNamespace(server.name).startsWith(mcpNamespace(other.name)));
    if (inside) refused.push({ server, shadowed: inside.name });
    else kept.push(server);
  }
  return { kept, refused };
}
