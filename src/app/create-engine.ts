/**
 * The composition root of the engine: everything the CLI and every adapter share, built once from
 * the configuration. Adapters and commands receive the pieces they need from here.
 */
import path from 'node:path';
import type { AppConfig } from '../config/app-config.js';
import type { Logger } from '../core/logger.js';
import type { LanguageModel } from '../core/model/language-model.js';
import type { ModelTier, ToolImplementation, ToolSchema, Workspace } from '../core/tools/tool.js';
import type { Roster } from '../core/data/types.js';
import { loadRoster } from '../core/data/load-roster.js';
import { dataFingerprint, recordChecked, wasChecked } from './data-fingerprint.js';
import { loadToolSchemas } from '../core/tools/tool-schema-loader.js';
import { createToolRegistry } from '../core/tools/create-tool-registry.js';
import { builtinToolImplementations } from '../core/tools/builtin-tools.js';
import { memoryToolImplementations } from '../core/tools/impl/memory-tools.js';
import { reportStatusTool } from '../core/tools/impl/report-status.js';
import { createWorkspace } from '../core/safety/workspace-jail.js';
import { createChildEnv } from '../core/safety/child-env.js';
import type { CommandSandbox } from '../core/safety/command-sandbox.js';
import { selectCommandSandbox } from '../core/safety/select-sandbox.js';
import { securePrivateFolder } from '../core/store/private-files.js';
import { openStore, type Store } from '../core/store/open-store.js';
import { openCoordination } from '../core/coordination/open-coordination.js';
import type { Coordination } from '../core/coordination/coordination.js';
import { createMemoryStore, type MemoryStore } from '../core/memory/memory-store.js';
import { openMemoryIndexFor } from '../core/memory/sqlite-memory-index.js';
import { upgradeMemoryToConversationScopes } from '../core/scopes/memory-upgrade.js';
import { createSessionStore } from '../core/store/session-store.js';
import { createRunStore } from '../core/store/run-store.js';
import { createApprovalStore } from '../core/store/approval-store.js';
import { createApprovalSigner } from '../core/store/approval-signature.js';
import { loadApprovalKey } from '../core/store/approval-key.js';
import { createDedupeStore } from '../core/store/dedupe-store.js';
import type { AuditLog } from '../core/audit/audit-log.js';
import { createStoreAuditLog } from '../core/audit/store-audit-log.js';
import { connectModelServer, findModelServer, type ModelConnection } from './model-connection.js';
import { TsukaError } from '../core/errors.js';
import { WORKFLOW_TOOL_NAMES } from '../core/tools/workflow-tool-names.js';
import { attachToolSourcesToRoster, createToolCatalogue, type ToolCatalogue } from '../core/tools/tool-catalogue.js';
import type { McpToolSource } from '../core/tools/mcp/mcp-tool-source.js';
import { createModelProfileStore } from '../core/benchmark/model-profile.js';
import { createModelTiers, type ModelTiers } from './model-tiers.js';

/** How long start waits for MCP servers before going on without the slow ones (they join when ready). */
import { createCreatedToolCatalog, type CreatedToolCatalog } from '../core/tools/created-tools.js';
import { CREATED_ROLES_FOLDER } from '../core/tools/impl/create-role.js';
import { combineRegistries } from '../core/workflows/combine-registries.js';

export interface Engine {
  config: AppConfig;
  logger: Logger;
  store: Store;
  /** Locks, turns, pub/sub and leases: in-process, or Redis when replicas share the store. */
  coordination: Coordination;
  memory: MemoryStore;
  sessions: ReturnType<typeof createSessionStore>;
  runs: ReturnType<typeof createRunStore>;
  approvals: ReturnType<typeof createApprovalStore>;
  dedupe: ReturnType<typeof createDedupeStore>;
  /** The audit trail (store namespace `audit`): approvals, exports, memory changes, admin actions. */
  audit: AuditLog;
  roster: Roster;
  /** The catalogue: the engine's own tools plus tool sources (MCP servers), with `/tsuka tools` groups. */
  tools: ToolCatalogue;
  /** The MCP servers of `TSUKA_MCP_CONFIG`, when any. */
  mcp?: McpToolSource;
  /** Tier per model id: TSUKA_LLM_TIER, else the measured profile, else the name. */
  tiers: ModelTiers;
  /** Tools made with `create_tool` (also inside `tools`): `/tsuka tools` lists them, an admin removes them. */
  createdTools: CreatedToolCatalog;
  /** Every schema in tools_schemas/, including tools only workflows implement. */
  toolSchemas: Map<string, ToolSchema>;
  workspace: Workspace;
  childEnv: NodeJS.ProcessEnv;
  /** Launches every agent command; `sandbox.summary` is the isolation line of the banner and doctor. */
  sandbox: CommandSandbox;
  maskSecrets: (text: string) => string;
  /** Undefined when no model server answered; callers say so to the user. */
  model?: LanguageModel;
  /** The server `model` runs on, found at start; undefined for an injected model or none found. */
  modelConnection?: ModelConnection;
  /** Whether this engine looks for model servers (false with an injected model or `discover: false`). */
  discovers: boolean;
  tier: ModelTier;
  close(): Promise<void>;
}

export interface CreateEngineOptions {
  config: AppConfig;
  logger: Logger;
  maskSecrets: (text: string) => string;
  /** Injected in tests; defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Skip model discovery (doctor probes by itself). */
  discover?: boolean;
  /** Use this model instead of discovering one (tests, the scripted playground). */
  model?: LanguageModel;
  /** Use this sandbox instead of choosing one from the configuration (tests). */
  sandbox?: CommandSandbox;
  /** Fail before any model probing when TSUKA_DEFAULT_CHARACTER names no character (`tsuka start`). */
  checkDefaultCharacter?: boolean;
  /** Connect the MCP servers of the configuration (default true; doctor connects them itself). */
  connectMcp?: boolean;
  /** Called with the roster once it is loaded and checked, before the sandbox probe and the store (`ask` starts probing its model server there). */
  onRoster?: (roster: Roster) => void;
}

export async function createEngine(options: CreateEngineOptions): Promise<Engine> {
  const { config, logger } = options;
  // The data folder 0700 and what an older version left world-readable in it tightened (a warning says so).
  await securePrivateFolder(config.dataDirectory, logger).catch((error: unknown) =>
    logger.warn('could not make the data folder private', { folder: config.dataDirectory, error }),
  );
  // Files that passed the full schema check before, unchanged since, are not compiled against it again.
  const fingerprint = await dataFingerprint(config.rootDirectory);
  const schemaChecked = await wasChecked(config.dataDirectory, fingerprint);
  const toolSchemas = await loadToolSchemas(path.join(config.rootDirectory, 'tools_schemas'), { schemaChecked });
  const implementations = [
    ...builtinToolImplementations({ enableCreateTool: config.enableCreateTool, fetch: options.fetch, searchUrl: config.searchUrl }),
    ...memoryToolImplementations(),
    // A closing summary in plain conversations and the CLI; workflows shadow it with their own.
    reportStatusTool as ToolImplementation,
  ];
  const schemas = new Map([...toolSchemas].filter(([name]) => implementations.some((tool) => tool.name === name)));
  const builtinTools = createToolRegistry({ schemas, implementations, logger });
  const workspace = await createWorkspace(config.workspace);
  const reservedNames = new Set([...toolSchemas.keys(), ...WORKFLOW_TOOL_NAMES]);
  // Tools made with create_tool are a tool source of their own, kept with the workspace.
  const createdTools = await createCreatedToolCatalog({ workspaceRoot: workspace.root, reservedNames, logger });
  // Roles made with create_role are kept with the workspace too, and load with the roster.
  const roster = await loadRoster({
    rootDirectory: config.rootDirectory,
    knownTools: reservedNames,
    extraRoleDirectories: [path.join(workspace.root, CREATED_ROLES_FOLDER)],
    // A created role without a recorded ceiling keeps the SAFE tools at most; a broken one is skipped.
    safeTools: new Set([...toolSchemas].filter(([, schema]) => schema.riskLevel === 'SAFE').map(([name]) => name)),
    onWarning: (problem) => logger.warn('a created role was skipped or cut down', { ...problem }),
    onAvatarProblem: (problem) => logger.warn('a character picture file was not used', { ...problem }),
    schemaChecked,
  });
  if (!schemaChecked)
    await recordChecked(config.dataDirectory, fingerprint).catch((error: unknown) => logger.debug('could not record the checked data fingerprint', { error }));
  if (options.checkDefaultCharacter && !roster.characters.has(config.defaultCharacter)) {
    throw new TsukaError(
      'unknown_character',
      `TSUKA_DEFAULT_CHARACTER="${config.defaultCharacter}" is not a character: use one of ${[...roster.characters.keys()].join(', ')}.`,
    );
  }
  options.onRoster?.(roster);
  // Chosen once, before anything can run a command; `bubblewrap` that does not work stops the start.
  // Its probe (one sandboxed `true`) runs while the store opens.
  const choosingSandbox = options.sandbox
    ? Promise.resolve(options.sandbox)
    : selectCommandSandbox({ ...config.sandbox, holdsPlatformTokens: config.slack !== undefined || config.discord !== undefined });
  choosingSandbox.catch(() => undefined); // awaited below; a failure must not count as unhandled meanwhile
  // Before the store: on Redis, the store's per-key writes are serialized across replicas by it.
  const coordination = await openCoordination(config.storeUrl, logger, { heartbeatMs: config.replicaHeartbeatMs, leaseMs: config.replicaLeaseMs }).catch(
    async (error: unknown) => {
      await choosingSandbox.catch(() => undefined);
      throw error;
    },
  );
  const store = await openStore({ url: config.storeUrl, dataDirectory: config.dataDirectory, logger, mutex: coordination.mutex }).catch(
    async (error: unknown) => {
      await choosingSandbox.catch(() => undefined);
      await coordination.close();
      throw error;
    },
  );
  const sandbox = await choosingSandbox.catch(async (error: unknown) => {
    await store.close();
    await coordination.close();
    throw error;
  });
  // Stored approvals are signed with it; a record written without it counts as denied (approval-key.ts).
  const approvalKey = await loadApprovalKey({
    approvalKey: config.storeSecurity.approvalKey,
    storeUrl: config.storeUrl,
    dataDirectory: config.dataDirectory,
  }).catch(async (error: unknown) => {
    await store.close();
    await coordination.close();
    throw error;
  });
  // Debug only: `tsuka start` says the sandbox's summary once in its own words, and `doctor` says both.
  logger.debug('command sandbox', { isolation: sandbox.isolation, summary: sandbox.summary });
  logger.debug('approvals signed', { key: approvalKey.source });
  logger.info('coordination', { replica: coordination.replicaId, location: coordination.location });
  const childEnv = createChildEnv(config.environment);
  // The MCP client (and its SDK) is loaded only when servers are configured: `ask` stays quick without.
  const mcp =
    config.mcp.servers.length > 0 && options.connectMcp !== false
      ? await startMcpSource(config, childEnv, workspace.root, sandbox, logger, options.fetch)
      : undefined;
  const tools = createToolCatalogue(combineRegistries(builtinTools, createdTools.registry), mcp ? [mcp] : []);
  attachToolSourcesToRoster(roster, tools.sources);
  // Each server is waited for up to its `startTimeoutS` (default 5 s); a mute one keeps connecting in the background.
  if (mcp) await mcp.start();
  const tiers = createModelTiers({ configured: config.llm.tier, profiles: createModelProfileStore(store), logger });
  // On the SQLite store, scopes open from snapshots kept in the same file (decision 0013); it connects at first use.
  const memoryIndex = openMemoryIndexFor(config.storeUrl, config.dataDirectory, { logger });
  // Facts from before conversation scopes are read as shared; stored text is masked once (issues 21, 29).
  const upgrade = await upgradeMemoryToConversationScopes({ store, maskSecrets: options.maskSecrets, logger, index: memoryIndex }).catch(
    async (error: unknown) => {
      await mcp?.close();
      await memoryIndex?.close();
      await store.close();
      await coordination.close();
      throw error;
    },
  );
  const memory = createMemoryStore({
    store,
    maxFactsPerScope: config.memoryMaxFacts,
    logger,
    index: memoryIndex,
    maskSecrets: options.maskSecrets,
    sharedScopes: upgrade.legacyScopes,
  });

  let model: LanguageModel | undefined = options.model;
  let connection: ModelConnection | undefined;
  if (!model && options.discover !== false) {
    const found = await findModelServer(config, { fetch: options.fetch, logger });
    if (found) {
      // Generation slots come from the coordination: replicas sharing a store share the servers' capacity.
      connection = await connectModelServer(config, found, {
        fetch: options.fetch,
        logger,
        slots: coordination.slots,
        // The queue's estimates use the speed `tsuka benchmark` measured, read at each estimate.
        measuredSpeed: (modelId) => tiers.profileFor(modelId)?.generationTokensPerSecond,
      });
      model = connection.model;
    } else {
      logger.warn('no model server answered', { baseURL: config.llm.baseURLs.join(', ') || undefined });
    }
  }

  if (model) await tiers.load(model.modelId);

  return {
    config,
    logger,
    store,
    memory,
    sessions: createSessionStore(store),
    coordination,
    runs: createRunStore(store, { owner: coordination.replicaId, ...(coordination.shared ? { sequence: coordination } : {}) }),
    approvals: createApprovalStore(store, { signer: createApprovalSigner(approvalKey.key), logger }),
    dedupe: createDedupeStore(store, coordination.shared ? { claim: (key, ttlMs) => coordination.claim(`event:${key}`, ttlMs) } : {}),
    audit: createStoreAuditLog(store, { maskSecrets: options.maskSecrets }),
    roster,
    tools,
    ...(mcp ? { mcp } : {}),
    tiers,
    createdTools,
    toolSchemas,
    workspace,
    childEnv,
    sandbox,
    maskSecrets: options.maskSecrets,
    model,
    modelConnection: connection,
    discovers: !options.model && options.discover !== false,
    tier: model ? tiers.tierFor(model.modelId) : 'MEDIUM',
    close: async () => {
      await mcp?.close();
      await memoryIndex?.close();
      await store.close();
      await coordination.close();
    },
  };
}

async function startMcpSource(
  config: AppConfig,
  childEnv: NodeJS.ProcessEnv,
  root: string,
  sandbox: CommandSandbox,
  logger: Logger,
  fetchImplementation?: typeof fetch,
): Promise<McpToolSource> {
  const [{ createMcpToolSource }, { sandboxedStdioLauncher, mcpServerFilesOptions }] = await Promise.all([
    import('../core/tools/mcp/mcp-tool-source.js'),
    import('../core/tools/mcp/launch-stdio-server.js'),
  ]);
  return createMcpToolSource({
    servers: config.mcp.servers,
    childEnv,
    workingDirectory: root,
    logger,
    fetch: fetchImplementation,
    // Each server sees its own files (read-only) and its persistent home `<data>/mcp-home/<name>`.
    launchStdio: sandboxedStdioLauncher(sandbox, mcpServerFilesOptions(config)),
  });
}
