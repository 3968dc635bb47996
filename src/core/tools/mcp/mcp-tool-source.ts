/**
 * MCP servers as a tool source: one connection per configured server, their tools joined under
 * `mcp__<server>__<tool>` names with the risk, tier and roles of their entry. The registry is rebuilt
 * whenever a server's tools change (start, death, restart, `tools/list_changed`), so validation,
 * risk, previews, errors and masking work exactly as for the engine's own tools.
 */
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { ToolInputError } from '../../errors.js';
import { silentLogger, type Logger } from '../../logger.js';
import { createToolRegistry, type AnyToolImplementation } from '../create-tool-registry.js';
import type { ToolRegistry, ToolSchema } from '../tool.js';
import type { ToolSource, ToolSourceGroup } from '../tool-source.js';
import { MCP_DEFAULT_START_TIMEOUT_S, type McpServerConfig } from './mcp-config.js';
import { convertMcpResult } from './mcp-result.js';
import {
  createMcpServerConnection,
  unavailableSentence,
  type McpBackoff,
  type McpServerConnection,
  type McpServerStatus,
  type McpToolInfo,
} from './mcp-server-connection.js';
import { isMcpToolName, mcpToolName, refuseShadowingEntries, type ShadowingEntry } from './mcp-tool-name.js';
import type { LaunchStdioServer } from './launch-stdio-server.js';
import { createSecretMasker } from '../../safety/secret-mask.js';
import { mcpEntrySecrets } from './mcp-secrets.js';
import { stringsIn } from '../outgoing-secrets.js';

/** Tool descriptions from servers can be long; the model sees at most this much of each. */
const MCP_DESCRIPTION_MAX_CHARS = 1024;
/** Arguments shown on an approval prompt. */
const APPROVAL_ARGUMENTS_MAX_CHARS = 1500;

export interface McpToolSourceOptions {
  servers: McpServerConfig[];
  /** The scrubbed child environment (`createChildEnv`). */
  childEnv: NodeJS.ProcessEnv;
  workingDirectory: string;
  logger?: Logger;
  launchStdio?: LaunchStdioServer;
  fetch?: typeof fetch;
  backoff?: McpBackoff;
}

export interface McpToolSource extends ToolSource {
  /** Connects every server; resolves when each has answered, failed its first attempt, or reached its start timeout. */
  start(): Promise<void>;
  statuses(): McpServerStatus[];
  close(): Promise<void>;
}

interface CatalogueEntry {
  server: McpServerConfig;
  connection: McpServerConnection;
  tool: McpToolInfo;
}

const addFormats = addFormatsModule.default;
// With the formats servers use (`uri`, `email`…): without them ajv prints "unknown format … ignored" on the console.
const schemaChecker = addFormats(new Ajv({ strict: false, allErrors: false }));

export function createMcpToolSource(options: McpToolSourceOptions): McpToolSource {
  const logger = options.logger ?? silentLogger;
  const listeners = new Set<() => void>();
  const baseEnv = Object.fromEntries(Object.entries(options.childEnv).filter((entry): entry is [string, string] => entry[1] !== undefined));
  // An entry whose names could be another entry's is never connected (issue 41): the other keeps its names.
  const { kept, refused } = refuseShadowingEntries(options.servers);
  for (const entry of refused) logger.warn(shadowingSentence(entry), { mcpServer: entry.server.name, shadowed: entry.shadowed });
  const connections = kept.map((server) => ({
    server,
    connection: createMcpServerConnection({
      config: server,
      baseEnv,
      workingDirectory: options.workingDirectory,
      logger,
      onChange: () => rebuild(),
      ...(options.launchStdio ? { launchStdio: options.launchStdio } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.backoff ? { backoff: options.backoff } : {}),
    }),
  }));
  let entries = new Map<string, CatalogueEntry>();
  /** Every name ever offered, with its server: a call to a withdrawn tool gets a clear answer. */
  const known = new Map<string, string>();
  let registry: ToolRegistry = createToolRegistry({ schemas: new Map(), implementations: [] });

  /** Clashes already warned about (name + refused server), so a flood of rebuilds logs each once. */
  const warnedClashes = new Set<string>();

  function rebuild(): void {
    const claims = new Map<string, CatalogueEntry[]>();
    for (const { server, connection } of connections) {
      for (const tool of connection.status().tools) {
        const name = mcpToolName(server.name, tool.name);
        claims.set(name, [...(claims.get(name) ?? []), { server, connection, tool }]);
      }
    }
    const next = new Map<string, CatalogueEntry>();
    for (const [name, claimants] of claims) {
      // Two tools that map to one name (a cut long name) are both refused, whichever came first; and a
      // name belongs to one server for the life of the process: never swapped to another.
      const owner = known.get(name);
      const first = claimants[0] as CatalogueEntry;
      if (claimants.length > 1 || (owner !== undefined && owner !== first.server.name)) {
        refuseClash(name, claimants, owner);
        continue;
      }
      next.set(name, first);
      known.set(name, first.server.name);
    }
    const schemas = new Map<string, ToolSchema>();
    const implementations: AnyToolImplementation[] = [];
    for (const [name, entry] of next) {
      schemas.set(name, toolSchema(name, entry, logger));
      implementations.push(toolImplementation(name, entry));
    }
    entries = next;
    registry = createToolRegistry({ schemas, implementations, logger });
    for (const listener of listeners) listener();
  }

  function refuseClash(name: string, claimants: CatalogueEntry[], owner: string | undefined): void {
    const who = claimants.map((claimant) => `"${claimant.tool.name}" of the server "${claimant.server.name}"`);
    const key = `${name}\u0000${who.join('\u0000')}`;
    if (warnedClashes.has(key)) return;
    warnedClashes.add(key);
    const because = owner !== undefined && claimants.length === 1 ? ` (it was the server "${owner}"'s)` : '';
    logger.warn(`the MCP tool name ${name} is claimed by ${who.join(' and ')}${because}: refused, none of them gets it (rename one of the tools or servers)`, {
      name,
      servers: claimants.map((claimant) => claimant.server.name),
    });
  }

  function withdrawnMessage(name: string): string {
    const serverName = known.get(name) ?? name.split('__')[1] ?? '';
    const connection = connections.find((candidate) => candidate.server.name === serverName)?.connection;
    if (!connection) return `Unknown tool "${name}": no MCP server named "${serverName}" is configured.`;
    const status = connection.status();
    if (status.state === 'ready')
      return `The MCP server "${serverName}" no longer offers "${name}". Its tools now: ${status.tools.map((tool) => mcpToolName(serverName, tool.name)).join(', ') || 'none'}.`;
    return unavailableSentence(serverName, status.error ?? (status.state === 'starting' ? 'it is starting' : undefined));
  }

  const liveRegistry: ToolRegistry = {
    has: (name) => registry.has(name),
    schema: (name) => registry.schema(name),
    names: () => registry.names(),
    definitionsFor: (names, tier) => registry.definitionsFor(names, tier),
    validate(name, input) {
      if (!registry.has(name)) throw new ToolInputError(name, withdrawnMessage(name));
      return registry.validate(name, input);
    },
    classify: (name, input, context) => registry.classify(name, input, context),
    preview: (name, input, context) => registry.preview(name, input, context),
    async execute(name, input, context) {
      if (!registry.has(name)) return { output: `Error: ${context.maskSecrets(withdrawnMessage(name))}`, isError: true, display: 'withdrawn' };
      return registry.execute(name, input, context);
    },
  };

  return {
    id: 'mcp',
    owns: isMcpToolName,
    registry: liveRegistry,
    toolsForRole: (role) => [...entries].filter(([, entry]) => !entry.server.roles || entry.server.roles.includes(role)).map(([name]) => name),
    groups: (): ToolSourceGroup[] => [
      ...connections.map(({ server, connection }): ToolSourceGroup => {
        const status = connection.status();
        return {
          label: `MCP server ${server.name}`,
          state: status.state === 'closed' ? 'failed' : status.state,
          tools: [...entries]
            .filter(([, entry]) => entry.server.name === server.name)
            .map(([name]) => name)
            .sort(),
          ...(status.error ? { error: status.error } : {}),
        };
      }),
      ...refused.map((entry): ToolSourceGroup => ({ label: `MCP server ${entry.server.name}`, state: 'failed', tools: [], error: shadowingSentence(entry) })),
    ],
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async start() {
      // Each server gets its start timeout; one that has not answered by then (a mute server) keeps
      // connecting in the background without holding up the start or a `tsuka ask`.
      await Promise.all(
        connections.map(async ({ server, connection }) => {
          const waitMs = server.startTimeoutMs ?? MCP_DEFAULT_START_TIMEOUT_S * 1000;
          if (!(await settlesWithin(connection.start(), waitMs))) {
            logger.warn('MCP server did not answer at start; going on without its tools while it keeps connecting', {
              mcpServer: server.name,
              startTimeoutS: waitMs / 1000,
            });
          }
        }),
      );
    },
    statuses: () => connections.map(({ connection }) => connection.status()),
    async close() {
      await Promise.allSettled(connections.map(({ connection }) => connection.close()));
      rebuild();
    },
  };
}

function shadowingSentence(entry: ShadowingEntry<McpServerConfig>): string {
  return `the MCP entry "${entry.server.name}" is refused: its tool names (mcp__${entry.server.name}__…) could be those of the entry "${entry.shadowed}", which keeps them — rename it without "__" or a trailing "_"`;
}

/** Whether `promise` settles within `ms` (its outcome is the caller's business elsewhere). */
async function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

function toolSchema(name: string, entry: CatalogueEntry, logger: Logger): ToolSchema {
  const description = `${entry.tool.description ?? entry.tool.name} (tool "${entry.tool.name}" of the MCP server "${entry.server.name}")`;
  return {
    name,
    description: description.length > MCP_DESCRIPTION_MAX_CHARS ? `${description.slice(0, MCP_DESCRIPTION_MAX_CHARS - 1)}…` : description,
    parameters: usableInputSchema(entry, logger),
    riskLevel: entry.server.risk.tools[entry.tool.name] ?? entry.server.risk.default,
    requiredTier: entry.server.requiredTier,
  };
}

/** The server's input schema without `$schema` (ajv 8 knows draft-07 only); a schema ajv cannot compile becomes "any object". */
function usableInputSchema(entry: CatalogueEntry, logger: Logger): Record<string, unknown> {
  const { $schema: _ignored, ...schema } = entry.tool.inputSchema as Record<string, unknown>;
  const withType = { type: 'object', ...schema };
  try {
    schemaChecker.compile(withType);
    return withType;
  } catch (error) {
    logger.warn('an MCP tool has an input schema that cannot be compiled; its arguments are checked by the server only', {
      server: entry.server.name,
      tool: entry.tool.name,
      error: String(error),
    });
    return { type: 'object' };
  }
}

/**
 * Secrets of the entry itself (`mcp-secrets.ts`): the global masker knows them too, but a masker
 * built from the environment alone (tests, older callers) does not, so a server echoing its token is
 * masked here as well.
 */
function entryMasker(server: McpServerConfig): (text: string) => string {
  return createSecretMasker({}, mcpEntrySecrets([server]));
}

/** Where an MCP call's arguments go, for the outgoing-secret check. */
function destinationOf(server: McpServerConfig): string {
  if (server.transport === 'stdio') return `the MCP server ${server.name}`;
  let host = server.url;
  try {
    host = new URL(server.url).host;
  } catch (error) {
    // The file's schema requires an http(s) URL; one that still does not parse is named whole.
    void error;
  }
  return `the MCP server ${server.name} (${host})`;
}

function toolImplementation(name: string, entry: CatalogueEntry): AnyToolImplementation {
  const mask = entryMasker(entry.server);
  return {
    name,
    outgoing: (input: Record<string, unknown>) => ({ destination: destinationOf(entry.server), texts: stringsIn(input) }),
    preview(input: Record<string, unknown>) {
      const json = JSON.stringify(input) ?? '{}';
      const argumentsText = json.length > APPROVAL_ARGUMENTS_MAX_CHARS ? `${json.slice(0, APPROVAL_ARGUMENTS_MAX_CHARS)}… (${json.length} characters)` : json;
      return {
        summary: `${entry.server.name}/${entry.tool.name} ${json.length > 80 ? `${json.slice(0, 79)}…` : json}`,
        details: [`MCP server: ${entry.server.name} (${mask(entry.connection.status().endpoint)})`, `Tool: ${entry.tool.name}`, `Arguments: ${argumentsText}`],
      };
    },
    async execute(input: Record<string, unknown>, context) {
      const result = convertMcpResult(await entry.connection.callTool(entry.tool.name, input, context.signal));
      return { output: mask(result.output), isError: result.isError, display: `${entry.server.name} · ${result.summary}` };
    },
  };
}
