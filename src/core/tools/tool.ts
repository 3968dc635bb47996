/**
 * The tool contract. A tool is one schema file in `tools_schemas/<name>.json` (what the model sees,
 * its risk and required tier) plus one implementation file in `src/core/tools/impl/<name>.ts`.
 */
import type { JsonSchema } from '../model/language-model.js';
import type { Logger } from '../logger.js';
import type { CommandSandbox } from '../safety/command-sandbox.js';
import type { RoleNetwork } from '../safety/sandbox-network.js';
import type { UntrustedContent } from '../safety/untrusted-content.js';

export type RiskLevel = 'SAFE' | 'RESTRICTED' | 'DANGEROUS';
export type ModelTier = 'SMALL' | 'MEDIUM' | 'LARGE';

/** The content of `tools_schemas/<name>.json`. */
export interface ToolSchema {
  name: string;
  description: string;
  parameters: JsonSchema;
  riskLevel: RiskLevel;
  requiredTier: ModelTier;
  /** Where the tool comes from when not a built-in schema file; `created` = made with `create_tool`. */
  origin?: string;
}

/** The risk of one particular call (execute_command classifies each command line). */
export interface CallRisk {
  level: RiskLevel;
  reason: string;
  /**
   * What "Approve for this run" on this call covers: later calls of the same tool with the same
   * scope (execute_command: the program and subcommand, e.g. `npm test`). Absent: the tool.
   */
  grantScope?: string;
  /** Decided for this call only: no "Approve for this run" (a network call of a turn that read untrusted text). */
  once?: true;
}

/** What the approval prompt shows: exactly what will happen. */
export interface CallPreview {
  /** One compact line, e.g. `read_file src/app.ts` or `execute_command npm test`. */
  summary: string;
  /** Extra lines for approvals: the command and its cwd, a diff or size preview, the path to delete. */
  details?: string[];
}

/** The jailed view of the workspace every path-taking tool uses. */
export interface Workspace {
  /** The workspace root, already resolved with realpath. */
  readonly root: string;
  /**
   * Resolves a user/model-supplied path inside the root (relative to it, or absolute inside it),
   * following symlinks of every existing ancestor; throws `WorkspaceEscapeError` outside.
   */
  resolve(path: string): Promise<string>;
  /** The path relative to the root, for display. */
  relative(absolutePath: string): string;
  /**
   * Folders outside the root that commands in this jail read at their own paths — a /goal staging
   * copy's dependency folders and the repository's object store — bound read-only by the sandbox.
   * The file tools never reach them.
   */
  readonly sharedReadOnly?: readonly string[];
  /**
   * Its files may be hard links shared with the real workspace (a /goal staging, issue 42): a
   * writer replaces a file (a new inode), never writes one in place while it has other links.
   */
  readonly linkedFiles?: boolean;
}

/** Extra capabilities a tool may need; each is optional and filled by whoever runs the agent. */
export interface ToolServices {
  [name: string]: unknown;
}

export interface ToolContext {
  workspace: Workspace;
  signal: AbortSignal;
  /** The environment child processes get: already scrubbed of secrets. */
  childEnv: NodeJS.ProcessEnv;
  /** Launches agent commands (bubblewrap or the declared fallback); chosen once at start. */
  sandbox: CommandSandbox;
  /** The active role's network (false: none, `host`: the host's, true/unset: the sandbox's default); set by the agent loop. */
  roleNetwork?: () => RoleNetwork;
  /** Masks secret values in any text before it leaves the tool. */
  maskSecrets(text: string): string;
  runId: string;
  /** The character running the tool. */
  agentName: string;
  /** Who approved this call, when a person did (set by the agent loop for a call that asked). */
  approvedBy?: string;
  /** The untrusted text the turn has read (set by the agent loop): its network tools then ask. */
  untrusted?: UntrustedContent;
  logger: Logger;
  services: ToolServices;
}

export interface ToolResult {
  /** Text given back to the model (capped by the agent loop, masked by the registry). */
  output: string;
  isError?: boolean;
  /** A short human line for the chat, e.g. `1.2 KB` or `exit 0 · 3 lines`. */
  display?: string;
  /** Set by the registry for a network tool: the output is untrusted text from there (it is fenced, and the turn marked). */
  untrusted?: string;
}

/** What one call sends out of the process, and to where (a host, or "the MCP server x"). */
export interface OutgoingCall {
  destination: string;
  texts: string[];
}

export interface ToolImplementation<Input = Record<string, unknown>> {
  name: string;
  /** Risk for this call when it depends on the input; otherwise the schema's `riskLevel` applies. */
  classify?(input: Input, context: ToolContext): CallRisk | Promise<CallRisk>;
  /**
   * For tools that send their arguments out of the process (search, URLs, MCP): what leaves and to
   * where. A call whose outgoing texts carry a known secret is DANGEROUS (`outgoing-secrets.ts`).
   */
  outgoing?(input: Input): OutgoingCall;
  preview(input: Input, context: ToolContext): CallPreview | Promise<CallPreview>;
  execute(input: Input, context: ToolContext): Promise<ToolResult>;
}

/** The registry the agent loop uses: schemas + implementations, ajv validation, masking of output. */
export interface ToolRegistry {
  has(name: string): boolean;
  schema(name: string): ToolSchema | undefined;
  names(): string[];
  /** Model-facing definitions for `names`, keeping only tools whose `requiredTier` the model's tier reaches. */
  definitionsFor(names: Iterable<string>, tier: ModelTier): import('../model/language-model.js').ToolDefinition[];
  /** Validates `input` against the tool's schema; throws `ToolInputError` that says what is wrong. */
  validate(name: string, input: unknown): Record<string, unknown>;
  /** The risk of this call: the implementation's `classify`, else the schema's `riskLevel`. */
  classify(name: string, input: Record<string, unknown>, context: ToolContext): Promise<CallRisk>;
  preview(name: string, input: Record<string, unknown>, context: ToolContext): Promise<CallPreview>;
  /** Runs the tool; errors become `{ isError: true }` results; output is masked with `context.maskSecrets`. */
  execute(name: string, input: Record<string, unknown>, context: ToolContext): Promise<ToolResult>;
}

/**
 * Services the agent loop puts in `context.services.agent` for tools that change the agent itself
 * (`load_tools`, `switch_skill`, `create_role`).
 */
export interface AgentControlService {
  /** Adds tools from the role's `allowedTools` to the offered set; unknown or not-allowed names are reported. */
  loadTools(names: string[]): { loaded: string[]; rejected: { name: string; reason: string }[] };
  /** Switches a multi-role character's active role for the rest of the session. */
  switchRole(roleName: string): { ok: boolean; message: string };
  /**
   * Registers a new role (validated, its tools within the creator's role's: its ceiling) for this
   * process; `create_role` writes the returned role (with its ceiling) to its file too.
   */
  addRole(role: import('../data/types.js').Role): { ok: boolean; message: string; role?: import('../data/types.js').Role };
}
