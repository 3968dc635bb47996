/**
 * The composition root of the engine: everything the CLI and every adapter share, built once from
 * the configuration. Adapters and commands receive the pieces they need from here.
 */
import path from 'node:path';
import type { AppConfig } from '../config/app-config.js';
import type { Logger } from '../core/logger.js';
import type { LanguageModel } from '../core/model/language-model.js';
import type { ModelTier, ToolImplementation, ToolRegistry, ToolSchema, Workspace } from '../core/tools/tool.js';
import type { Roster } from '../core/data/types.js';
import { loadRoster } from '../core/data/load-roster.js';
import { loadToolSchemas } from '../core/tools/tool-schema-loader.js';
import { createToolRegistry } from '../core/tools/create-tool-registry.js';
import { builtinToolImplementations } from '../core/tools/builtin-tools.js';
import { memoryToolImplementations } from '../core/tools/impl/memory-tools.js';
import { reportStatusTool } from '../core/tools/impl/report-status.js';
import { createWorkspace } from '../core/safety/workspace-jail.js';
import { createChildEnv } from '../core/safety/child-env.js';
import { createSecretMasker } from '../core/safety/secret-mask.js';
import { openStore, type Store } from '../core/store/open-store.js';
import { createMemoryStore, type MemoryStore } from '../core/memory/memory-store.js';
import { createSessionStore } from '../core/store/session-store.js';
import { createRunStore } from '../core/store/run-store.js';
import { createApprovalStore } from '../core/store/approval-store.js';
import { createDedupeStore } from '../core/store/dedupe-store.js';
import { loadProviderCatalogue } from '../core/provider/catalogue.js';
import { discoverModel, type DiscoveryResult } from '../core/provider/discovery.js';
import { createOpenAICompatibleModel } from '../core/provider/openai-compatible-model.js';
import { resolveModelTier } from '../core/provider/model-tier.js';
import { WORKFLOW_TOOL_NAMES } from '../core/tools/workflow-tool-names.js';
import { createCreatedToolCatalog, type CreatedToolCatalog } from '../core/tools/created-tools.js';
import { CREATED_ROLES_FOLDER } from '../core/tools/impl/create-role.js';
import { combineRegistries } from '../core/workflows/combine-registries.js';
import { createQueuedModel, defaultMaxConcurrent } from '../core/model/queued-model.js';
import { createSwitchableModel, type SwitchableModel } from '../core/model/switchable-model.js';

export interface Engine {
  config: AppConfig;
  logger: Logger;
  store: Store;
  memory: MemoryStore;
  sessions: ReturnType<typeof createSessionStore>;
  runs: ReturnType<typeof createRunStore>;
  approvals: ReturnType<typeof createApprovalStore>;
  dedupe: ReturnType<typeof createDedupeStore>;
  roster: Roster;
  tools: ToolRegistry;
  /** Tools made with `create_tool` (also inside `tools`): `/tsuka tools` lists them, an admin removes them. */
  createdTools: CreatedToolCatalog;
  /** Every schema in tools_schemas/, including tools only workflows implement. */
  toolSchemas: Map<string, ToolSchema>;
  workspace: Workspace;
  childEnv: NodeJS.ProcessEnv;
  maskSecrets: (text: string) => string;
  /** Undefined when no model server answered; callers say so to the user. */
  model?: LanguageModel;
  modelInfo?: DiscoveryResult;
  /** Replaces the endpoint model behind `model` (same queue); undefined for an injected model. */
  modelSwitch?: SwitchableModel;
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
}

export async function createEngine(options: CreateEngineOptions): Promise<Engine> {
  const { config, logger } = options;
  const toolSchemas = await loadToolSchemas(path.join(config.rootDirectory, 'tools_schemas'));
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
  const tools = combineRegistries(builtinTools, createdTools.registry);
  // Roles made with create_role are kept with the workspace too, and load with the roster.
  const roster = await loadRoster({ rootDirectory: config.rootDirectory, knownTools: reservedNames, extraRoleDirectories: [path.join(workspace.root, CREATED_ROLES_FOLDER)] });
  const store = await openStore({ url: config.storeUrl, dataDirectory: config.dataDirectory, logger });
  const memory = createMemoryStore({ store, maxFactsPerScope: config.memoryMaxFacts, logger });

  let model: LanguageModel | undefined = options.model;
  let modelInfo: DiscoveryResult | undefined;
  let modelSwitch: SwitchableModel | undefined;
  if (!model && options.discover !== false) {
    const catalogue = await loadProviderCatalogue(path.join(config.rootDirectory, 'providers.json'));
    const apiKeys = Object.fromEntries(catalogue.filter((p) => p.apiKeyEnv).map((p) => [p.id, config.environment[p.apiKeyEnv!]]));
    modelInfo =
      (await discoverModel({
        catalogue,
        configured: config.llm.baseURL ? { baseURL: config.llm.baseURL, modelId: config.llm.modelId, apiKey: config.llm.apiKey } : undefined,
        fetch: options.fetch,
        apiKeys,
      })) ?? undefined;
    if (modelInfo) {
      const apiKey = config.llm.baseURL ? config.llm.apiKey : apiKeys[modelInfo.providerId];
      const endpointModel = createOpenAICompatibleModel({
        providerId: modelInfo.providerId,
        baseURL: modelInfo.baseURL,
        modelId: config.llm.modelId ?? modelInfo.modelId,
        apiKey,
        contextWindow: modelInfo.contextWindow,
        fetch: options.fetch,
        firstTokenTimeoutMs: config.llm.firstTokenTimeoutMs,
        generationTimeoutMs: config.llm.generationTimeoutMs,
        logger,
      });
      // One queue per endpoint: parallel steps and many channels share a local GPU fairly.
      modelSwitch = createSwitchableModel(endpointModel);
      model = createQueuedModel(modelSwitch, { maxConcurrent: defaultMaxConcurrent(modelInfo.class, config.llm.concurrency) });
      logger.info('model selected', { provider: modelInfo.providerId, model: model.modelId, contextWindow: modelInfo.contextWindow });
    } else {
      logger.warn('no model server answered');
    }
  }

  return {
    config,
    logger,
    store,
    memory,
    sessions: createSessionStore(store),
    runs: createRunStore(store),
    approvals: createApprovalStore(store),
    dedupe: createDedupeStore(store),
    roster,
    tools,
    createdTools,
    toolSchemas,
    workspace,
    childEnv: createChildEnv(config.environment),
    maskSecrets: options.maskSecrets,
    model,
    modelInfo,
    modelSwitch,
    tier: model ? resolveModelTier(model.modelId, { tier: config.llm.tier }) : 'MEDIUM',
    close: () => store.close(),
  };
}
