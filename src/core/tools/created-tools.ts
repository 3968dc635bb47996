/**
 * Tools made with `create_tool`: command templates kept in `<workspace>/.tsuka/tools/<name>.json`,
 * registered as a tool source (risk DANGEROUS on every call, tier MEDIUM, origin `created`) the
 * moment they are made, and loaded again at start. A role that allows `create_tool` may use them.
 */
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { silentLogger, type Logger } from '../logger.js';
import { writeFileAtomic } from './atomic-write.js';
import { createToolRegistry } from './create-tool-registry.js';
import { executeCommandTool } from './impl/execute-command.js';
import { MCP_TOOL_PREFIX } from './mcp/mcp-tool-name.js';
import type { ToolImplementation, ToolRegistry, ToolSchema } from './tool.js';

/** Where created tools are kept, relative to the workspace root. */
export const CREATED_TOOLS_FOLDER = '.tsuka/tools';
const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

export interface CreatedToolDefinition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  /** A shell command with `{{parameter}}` placeholders, each filled with a single-quoted argument. */
  command: string;
  createdBy: string;
  createdAt: string;
}

/** The catalogue of created tools: a live registry plus what `/tsuka tools` shows and removes. */
export interface CreatedToolCatalog {
  /** Always current: a tool added or removed is seen by the next lookup. */
  registry: ToolRegistry;
  list(): CreatedToolDefinition[];
  /** Writes the definition and registers it at once. */
  add(definition: CreatedToolDefinition): Promise<void>;
  /** Unregisters the tool and deletes its file; false when there is no such created tool. */
  remove(name: string): Promise<boolean>;
}

const quote = (value: unknown): string => `'${String(typeof value === 'object' ? JSON.stringify(value) : value).replace(/'/g, `'\\''`)}'`;

/** The command with every placeholder replaced by its argument, single-quoted for the shell. */
export function fillCommandTemplate(template: string, input: Record<string, unknown>): string {
  return template.replace(PLACEHOLDER, (_, name: string) => (input[name] === undefined ? "''" : quote(input[name])));
}

function implementationOf(definition: CreatedToolDefinition): ToolImplementation {
  return {
    name: definition.name,
    // Whatever the command looks like, a created tool asks a person every time.
    classify: () => ({ level: 'DANGEROUS', reason: `${definition.name} was made with create_tool: every call needs approval` }),
    preview: (input, context) => ({
      summary: `${definition.name} ${fillCommandTemplate(definition.command, input)}`.slice(0, 120),
      details: [
        `command: ${fillCommandTemplate(definition.command, input)}`,
        `cwd: ${context.workspace.root}`,
        `made by ${definition.createdBy} with create_tool`,
      ],
    }),
    execute: (input, context) => executeCommandTool.execute({ command: fillCommandTemplate(definition.command, input) }, context),
  };
}

function schemaOf(definition: CreatedToolDefinition): ToolSchema {
  return {
    name: definition.name,
    description: definition.description,
    parameters: definition.parameters,
    riskLevel: 'DANGEROUS',
    requiredTier: 'MEDIUM',
    origin: 'created',
  };
}

function isDefinition(value: unknown): value is CreatedToolDefinition {
  const candidate = value as Partial<CreatedToolDefinition> | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.name === 'string' &&
    /^[a-z][a-z0-9_]{1,31}$/.test(candidate.name) &&
    typeof candidate.description === 'string' &&
    typeof candidate.command === 'string' &&
    typeof candidate.parameters === 'object' &&
    candidate.parameters !== null
  );
}

/** What a created tool's name clashes with (a built-in, an MCP name, another file), or undefined. */
function createdToolClash(name: string, reserved: ReadonlySet<string>, definedIn: ReadonlyMap<string, string>): string | undefined {
  if (reserved.has(name)) return `the built-in tool ${name}`;
  if (name.startsWith(MCP_TOOL_PREFIX)) return `the names of MCP tools (${MCP_TOOL_PREFIX}…)`;
  const earlier = definedIn.get(name);
  return earlier === undefined ? undefined : `${earlier}, which defines it already`;
}

export async function createCreatedToolCatalog(options: {
  workspaceRoot: string;
  reservedNames: ReadonlySet<string>;
  logger?: Logger;
}): Promise<CreatedToolCatalog> {
  const logger = options.logger ?? silentLogger;
  const folder = path.join(options.workspaceRoot, CREATED_TOOLS_FOLDER);
  const definitions = new Map<string, CreatedToolDefinition>();
  // Written by agents into the workspace: a broken or clashing file is skipped with a warning, never fatal.
  const definedIn = new Map<string, string>();
  for (const file of (await readdir(folder).catch(() => [] as string[])).sort()) {
    if (!file.endsWith('.json')) continue;
    const shown = `${CREATED_TOOLS_FOLDER}/${file}`;
    try {
      const parsed: unknown = JSON.parse(await readFile(path.join(folder, file), 'utf8'));
      const clash = isDefinition(parsed) ? createdToolClash(parsed.name, options.reservedNames, definedIn) : undefined;
      if (!isDefinition(parsed)) logger.warn('skipped a created tool file: it is not a valid tool definition', { file: shown });
      else if (clash) logger.warn(`skipped a created tool file: the tool "${parsed.name}" clashes with ${clash}`, { file: shown, clashesWith: clash });
      else {
        definitions.set(parsed.name, parsed);
        definedIn.set(parsed.name, shown);
      }
    } catch (error) {
      logger.warn('skipped a created tool file: it cannot be read', { file: shown, error });
    }
  }
  let current = build();
  function build(): ToolRegistry {
    const all = [...definitions.values()];
    return createToolRegistry({
      schemas: new Map(all.map((definition) => [definition.name, schemaOf(definition)])),
      implementations: all.map(implementationOf),
      logger,
    });
  }
  const registry: ToolRegistry = {
    has: (name) => current.has(name),
    schema: (name) => current.schema(name),
    names: () => current.names(),
    definitionsFor: (names, tier) => current.definitionsFor(names, tier),
    validate: (name, input) => current.validate(name, input),
    classify: (name, input, context) => current.classify(name, input, context),
    preview: (name, input, context) => current.preview(name, input, context),
    execute: (name, input, context) => current.execute(name, input, context),
  };
  return {
    registry,
    list: () => [...definitions.values()].sort((a, b) => a.name.localeCompare(b.name)),
    async add(definition) {
      await mkdir(folder, { recursive: true });
      await writeFileAtomic(path.join(folder, `${definition.name}.json`), `${JSON.stringify({ ...definition, riskLevel: 'DANGEROUS' }, null, 2)}\n`);
      definitions.set(definition.name, definition);
      current = build();
    },
    async remove(name) {
      if (!definitions.delete(name)) return false;
      current = build();
      await rm(path.join(folder, `${name}.json`), { force: true });
      return true;
    },
  };
}

/** What `create_tool` finds in `context.services.createdTools`. */
export function createdToolCatalogOf(services: Record<string, unknown>): Pick<CreatedToolCatalog, 'add'> | undefined {
  const value = services.createdTools as Partial<CreatedToolCatalog> | undefined;
  return value && typeof value.add === 'function' ? (value as CreatedToolCatalog) : undefined;
}
