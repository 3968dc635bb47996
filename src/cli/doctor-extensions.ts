/** Doctor sections for MCP servers (✓ tool count / ✗ reason) and measured model profiles. */
import type { AppConfig } from '../config/app-config.js';
import { createChildEnv } from '../core/safety/child-env.js';
import { createWorkspace } from '../core/safety/workspace-jail.js';
import { createMcpToolSource } from '../core/tools/mcp/mcp-tool-source.js';
import { mcpServerFilesOptions, sandboxedStdioLauncher } from '../core/tools/mcp/launch-stdio-server.js';
import type { CommandSandbox } from '../core/safety/command-sandbox.js';
import { openStore } from '../core/store/open-store.js';
import { createModelProfileStore } from '../core/benchmark/model-profile.js';
import { formatProfileLine } from '../core/benchmark/format-profile.js';
import { tierFromModelName } from '../core/provider/model-tier.js';

export interface DoctorReporter {
  ok(text: string): void;
  bad(text: string, fix?: string): void;
  info(text: string): void;
}

/** Starts each configured MCP server once (no restarts), lists what it offers, and stops it. */
export async function checkMcpServers(
  config: AppConfig,
  reporter: DoctorReporter,
  fetchImplementation?: typeof fetch,
  sandbox?: CommandSandbox,
): Promise<void> {
  if (config.mcp.servers.length === 0) {
    reporter.info('no MCP servers configured (TSUKA_MCP_CONFIG, or mcp.json in the working directory)');
    return;
  }
  // Stdio servers start in the workspace, as under `tsuka start` (which creates it too).
  const workspace = await createWorkspace(config.workspace);
  const source = createMcpToolSource({
    servers: config.mcp.servers,
    childEnv: createChildEnv(config.environment),
    workingDirectory: workspace.root,
    ...(fetchImplementation ? { fetch: fetchImplementation } : {}),
    // In the same sandbox as under `tsuka start`: doctor checks what start would run.
    ...(sandbox ? { launchStdio: sandboxedStdioLauncher(sandbox, mcpServerFilesOptions(config)) } : {}),
    // Doctor looks once; the restart timer is cleared by close().
    backoff: { initialMs: 3_600_000, maxMs: 3_600_000 },
  });
  try {
    await source.start();
    for (const status of source.statuses()) {
      if (status.state === 'ready') reporter.ok(`MCP server ${status.name}: ${status.tools.length} tool(s) (${status.endpoint})`);
      else
        reporter.bad(
          `MCP server ${status.name}: ${status.error ?? (status.state === 'starting' ? 'it did not answer within its start timeout (startTimeoutS, default 5 s)' : status.state)}`,
          `check its entry in ${config.mcp.file ?? 'the MCP config'} (${status.endpoint})`,
        );
    }
  } finally {
    await source.close();
  }
}

/** The measured profile of each model doctor found (or how its tier is chosen without one). */
export async function reportModelProfiles(config: AppConfig, modelIds: string[], reporter: DoctorReporter): Promise<void> {
  if (modelIds.length === 0) return;
  let store;
  try {
    store = await openStore({ url: config.storeUrl, dataDirectory: config.dataDirectory });
  } catch (error) {
    reporter.info(`model profiles could not be read: ${error instanceof Error ? error.message : String(error)}`);
    return;
  }
  try {
    const profiles = createModelProfileStore(store);
    for (const modelId of new Set(modelIds)) {
      const profile = await profiles.get(modelId);
      const override = config.llm.tier ? ` — TSUKA_LLM_TIER=${config.llm.tier} overrides it` : '';
      if (profile) reporter.info(`profile of ${modelId}: ${formatProfileLine(profile)}${override}`);
      else
        reporter.info(
          `${modelId}: no measured profile (run \`tsuka benchmark\`); tier ${config.llm.tier ?? tierFromModelName(modelId)} ${config.llm.tier ? 'from TSUKA_LLM_TIER' : 'guessed from the name'}`,
        );
    }
  } finally {
    await store.close();
  }
}

/**
 * The sandbox's network and limits under its summary: ✓ where commands cannot reach the host's
 * loopback services, · with what to do otherwise.
 */
export function reportSandboxDetails(sandbox: CommandSandbox, reporter: Pick<DoctorReporter, 'ok' | 'info'>): void {
  for (const line of sandbox.details ?? []) {
    if (line.startsWith('network:') && sandbox.network !== 'user')
      reporter.info(
        `${line}\n    → for a network that reaches the internet but not the host's loopback services: install slirp4netns (apt-get install slirp4netns) and set TSUKA_SANDBOX_NETWORK=auto (the default)`,
      );
    else reporter.ok(line);
  }
}
