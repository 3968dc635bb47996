/**
 * The MCP servers file (`TSUKA_MCP_CONFIG`, default `mcp.json`): the `{"mcpServers": {…}}` shape
 * other MCP hosts use, plus TSUKA's own optional keys (`roles`, `risk`, `requiredTier`, `timeoutS`, `startTimeoutS`).
 * Validated with ajv; a bad file is one line naming the file and the key.
 */
import { readFileSync } from 'node:fs';
import type { ErrorObject } from 'ajv';
import { TsukaError } from '../../errors.js';
import type { ModelTier, RiskLevel } from '../tool.js';
import { ownValidator, type OwnSchema } from '../../validation/own-validator.js';

/** Server names become part of tool names (`mcp__<server>__<tool>`), so they are kept short and plain. */
export const MCP_SERVER_NAME_PATTERN = '^[a-zA-Z0-9_-]{1,24}$';
export const MCP_DEFAULT_TIMEOUT_S = 60;
/** How long a start (and each `tsuka ask`) waits for a server before going on without its tools. */
export const MCP_DEFAULT_START_TIMEOUT_S = 5;
export const MCP_DEFAULT_RISK: RiskLevel = 'RESTRICTED';

interface McpServerCommon {
  name: string;
  /** Roles whose characters may use this server's tools; undefined = every role. */
  roles?: string[];
  /** Risk of a tool by its MCP name; `default` for the rest (RESTRICTED unless the file says otherwise). */
  risk: { default: RiskLevel; tools: Record<string, RiskLevel> };
  requiredTier: ModelTier;
  timeoutMs: number;
  /** How long a start waits for the server's tools before going on without them (it keeps connecting); default 5 s. */
  startTimeoutMs?: number;
}

export interface McpStdioServerConfig extends McpServerCommon {
  transport: 'stdio';
  command: string;
  args: string[];
  /** Added to the scrubbed environment the process gets. */
  env: Record<string, string>;
  cwd?: string;
  /** Start it through the command sandbox (default); `false` for a trusted server that needs the host (e.g. installed in the bot's home). */
  sandbox: boolean;
}

export interface McpHttpServerConfig extends McpServerCommon {
  transport: 'http';
  url: string;
  headers: Record<string, string>;
}

export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

const RISK = { enum: ['SAFE', 'RESTRICTED', 'DANGEROUS'] };
const STRING_MAP = { type: 'object', additionalProperties: { type: 'string' } };
const COMMON = {
  roles: { type: 'array', items: { type: 'string', minLength: 1 } },
  risk: { oneOf: [RISK, { type: 'object', additionalProperties: RISK }] },
  requiredTier: { enum: ['SMALL', 'MEDIUM', 'LARGE'] },
  timeoutS: { type: 'number', exclusiveMinimum: 0, maximum: 3600 },
  startTimeoutS: { type: 'number', exclusiveMinimum: 0, maximum: 3600 },
  description: { type: 'string' },
  disabled: { type: 'boolean' },
};

const FILE_SCHEMA = {
  type: 'object',
  required: ['mcpServers'],
  properties: {
    $schema: { type: 'string' },
    mcpServers: {
      type: 'object',
      propertyNames: { pattern: MCP_SERVER_NAME_PATTERN },
      additionalProperties: {
        type: 'object',
        oneOf: [
          {
            required: ['command'],
            not: { required: ['url'] },
            properties: {
              command: { type: 'string', minLength: 1 },
              args: { type: 'array', items: { type: 'string' } },
              env: STRING_MAP,
              cwd: { type: 'string' },
              sandbox: { type: 'boolean' },
              type: { const: 'stdio' },
              ...COMMON,
            },
            additionalProperties: false,
          },
          {
            required: ['url'],
            not: { required: ['command'] },
            properties: {
              url: { type: 'string', pattern: '^https?://' },
              headers: STRING_MAP,
              type: { enum: ['http', 'streamable-http', 'streamableHttp'] },
              ...COMMON,
            },
            additionalProperties: false,
          },
        ],
      },
    },
  },
} as const;

const [STDIO_ENTRY, HTTP_ENTRY] = FILE_SCHEMA.properties.mcpServers.additionalProperties.oneOf;
const mcpSchema = (id: string, schema: object): OwnSchema => ({ id, options: { allErrors: false, strict: false }, load: () => schema });
/** The file's schema, and per-kind checks without `oneOf` (precompiled in the build: `own-validator.ts`). */
export const MCP_CONFIG_SCHEMAS = {
  file: mcpSchema('mcpConfigFile', FILE_SCHEMA),
  stdio: mcpSchema('mcpStdioServer', { type: 'object', properties: STDIO_ENTRY.properties }),
  http: mcpSchema('mcpHttpServer', { type: 'object', properties: HTTP_ENTRY.properties }),
};

/** A bad MCP servers file: `message` is one line naming the file and the key. */
export class McpConfigError extends TsukaError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('mcp_config_invalid', message, options);
    this.name = 'McpConfigError';
  }
}

interface RawServer {
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  sandbox?: boolean;
  url?: string;
  headers?: Record<string, string>;
  roles?: string[];
  risk?: RiskLevel | Record<string, RiskLevel>;
  requiredTier?: ModelTier;
  timeoutS?: number;
  startTimeoutS?: number;
  disabled?: boolean;
}

/** Parses and validates the text of an MCP servers file; `fileName` is only used in messages. */
export function parseMcpConfig(text: string, fileName: string): McpServerConfig[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new McpConfigError(`${fileName} is not valid JSON (${(error as Error).message}).`, { cause: error });
  }
  const validateFile = ownValidator(MCP_CONFIG_SCHEMAS.file);
  if (!validateFile(parsed)) throw new McpConfigError(`${fileName}: ${describeError(validateFile.errors ?? [], parsed)}`);
  const servers = (parsed as { mcpServers: Record<string, RawServer> }).mcpServers;
  return Object.entries(servers)
    .filter(([, raw]) => raw.disabled !== true)
    .map(([name, raw]) => toServerConfig(name, raw));
}

/** Reads and parses the file at `filePath`. */
export function loadMcpConfigFile(filePath: string): McpServerConfig[] {
  let text: string;
  try {
    text = readFileSync(filePath, 'utf8');
  } catch (error) {
    throw new McpConfigError(`${filePath} could not be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`, { cause: error });
  }
  return parseMcpConfig(text, filePath);
}

function toServerConfig(name: string, raw: RawServer): McpServerConfig {
  const risk =
    typeof raw.risk === 'string'
      ? { default: raw.risk, tools: {} }
      : { default: raw.risk?.['*'] ?? MCP_DEFAULT_RISK, tools: Object.fromEntries(Object.entries(raw.risk ?? {}).filter(([tool]) => tool !== '*')) };
  const common = {
    name,
    ...(raw.roles ? { roles: raw.roles } : {}),
    risk,
    requiredTier: raw.requiredTier ?? 'SMALL',
    timeoutMs: Math.round((raw.timeoutS ?? MCP_DEFAULT_TIMEOUT_S) * 1000),
    startTimeoutMs: Math.round((raw.startTimeoutS ?? MCP_DEFAULT_START_TIMEOUT_S) * 1000),
  };
  if (raw.url !== undefined) return { ...common, transport: 'http', url: raw.url, headers: raw.headers ?? {} };
  return {
    ...common,
    transport: 'stdio',
    command: raw.command!,
    args: raw.args ?? [],
    env: raw.env ?? {},
    ...(raw.cwd ? { cwd: raw.cwd } : {}),
    sandbox: raw.sandbox !== false,
  };
}

/** One sentence for the first ajv error, naming the key as a dotted path (`mcpServers.github.timeoutS`). */
function describeError(errors: ErrorObject[], data: unknown): string {
  const error = errors[0];
  if (!error) return 'invalid.';
  const segments = error.instancePath
    .split('/')
    .filter(Boolean)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  const badName = errors.find((candidate) => (candidate.params as { propertyName?: string }).propertyName !== undefined);
  if (badName) {
    const name = String((badName.params as { propertyName?: string }).propertyName);
    return `mcpServers."${name}" is not a valid server name: use 1–24 letters, digits, _ or -.`;
  }
  // oneOf hides the useful error behind "must match exactly one schema"; re-check the entry for a precise line.
  if (segments[0] === 'mcpServers' && segments.length >= 2) {
    return describeServerError(segments[1]!, (data as { mcpServers: Record<string, unknown> }).mcpServers[segments[1]!]);
  }
  const key = segments.join('.') || '(top level)';
  if (error.keyword === 'required')
    return `${key === '(top level)' ? '' : `${key}.`}${(error.params as { missingProperty: string }).missingProperty} is missing: write {"mcpServers": {"name": {"command": …} | {"url": …}}}.`;
  return `${key} ${error.message ?? 'is invalid'}.`;
}

function describeServerError(name: string, entry: unknown): string {
  const key = `mcpServers.${name}`;
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return `${key} must be an object with "command" (stdio) or "url" (Streamable HTTP).`;
  const record = entry as Record<string, unknown>;
  if (record.command !== undefined && record.url !== undefined) return `${key} has both "command" and "url": a server is either stdio or HTTP.`;
  if (record.command === undefined && record.url === undefined) return `${key} needs "command" (stdio) or "url" (Streamable HTTP).`;
  const stdio = record.command !== undefined;
  const allowed = new Set([...Object.keys(COMMON), ...(stdio ? ['command', 'args', 'env', 'cwd', 'sandbox', 'type'] : ['url', 'headers', 'type'])]);
  const unknown = Object.keys(record).find((field) => !allowed.has(field));
  if (unknown) return `${key}.${unknown} is not a known key for a ${stdio ? 'stdio' : 'HTTP'} server.`;
  const schemaFor = ownValidator(stdio ? MCP_CONFIG_SCHEMAS.stdio : MCP_CONFIG_SCHEMAS.http);
  if (!schemaFor(record)) {
    const first = schemaFor.errors?.[0];
    const field = (first?.instancePath ?? '').split('/').filter(Boolean).join('.');
    return `${key}.${field.startsWith('risk') ? 'risk' : field} ${field.startsWith('risk') ? 'must be SAFE, RESTRICTED, DANGEROUS or an object of them per tool' : (first?.message ?? 'is invalid')}.`;
  }
  return `${key} is invalid.`;
}
