/** Builds the command layer's dependencies from the engine and the configuration. */
import type { CommandDependencies, ModelControl } from '../commands/command-dependencies.js';
import type { Engine } from './create-engine.js';
import { createBenchmarkControl } from './benchmark-control.js';
import { createChannelSettings } from '../commands/channels/channel-settings.js';
import { createPolicySource } from '../commands/policy/policy-source.js';

export function commandDependencies(engine: Engine, models: ModelControl, overrides: Partial<CommandDependencies['settings']> = {}): CommandDependencies {
  const { config } = engine;
  const deps: CommandDependencies = {
    roster: engine.roster,
    tools: engine.tools,
    toolSchemas: engine.toolSchemas,
    createdTools: engine.createdTools,
    workspace: engine.workspace,
    childEnv: engine.childEnv,
    sandbox: engine.sandbox,
    maskSecrets: engine.maskSecrets,
    memory: engine.memory,
    sessions: engine.sessions,
    runs: engine.runs,
    approvals: engine.approvals,
    dedupe: engine.dedupe,
    audit: engine.audit,
    store: engine.store,
    coordination: engine.coordination,
    models,
    logger: engine.logger,
    toolGroups: () => engine.tools.groups(),
    benchmark: createBenchmarkControl(engine, models),
    policy: createPolicySource(config.policy ?? {}),
    settings: {
      admins: config.admins,
      channels: config.channels,
      approvalTimeoutMs: config.approvalTimeoutMs,
      defaultCharacter: config.defaultCharacter,
      plainMentions: config.plainMentions,
      userEventsPerMinute: config.userEventsPerMinute,
      tierPinned: config.llm.tier !== undefined,
      dangerousApproval: config.dangerousApproval,
      threadReplies: config.threadReplies,
      channelPolicies: config.channelPolicies,
      ...(config.timezone ? { timezone: config.timezone } : {}),
      scheduleMinIntervalMs: config.scheduleMinIntervalMs,
      publicUrl: config.publicUrl,
      agent: { maxToolRounds: config.maxToolRounds, maxToolResultTokens: config.maxToolResultTokens, defaultEffort: config.llm.defaultEffort },
      ...overrides,
    },
  };
  // One lookup for the whole process: workspaces per channel are opened once.
  return { ...deps, channelSettings: createChannelSettings(deps) };
}
