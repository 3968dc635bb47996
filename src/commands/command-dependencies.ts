/**
 * What the command layer needs from the engine, injected by the composition root. Only core
 * types here: the command layer knows threads, runs and approvals, never platforms.
 */
import type { PolicySource } from './policy/policy-source.js';
import type { Logger } from '../core/logger.js';
import type { LanguageModel } from '../core/model/language-model.js';
import type { Roster } from '../core/data/types.js';
import type { ModelTier, ToolRegistry, ToolSchema, Workspace } from '../core/tools/tool.js';
import type { MemoryStore } from '../core/memory/memory-store.js';
import type { SessionStore } from '../core/store/session-store.js';
import type { RunStore } from '../core/store/run-store.js';
import type { ApprovalStore } from '../core/store/approval-store.js';
import type { Store } from '../core/store/open-store.js';
import type { AuditLog } from '../core/audit/audit-log.js';
import type { Coordination } from '../core/coordination/coordination.js';
import type { AgentSettings } from '../core/agent/agent-defaults.js';
import type { CommandSandbox } from '../core/safety/command-sandbox.js';
import type { ToolSourceGroup } from '../core/tools/tool-source.js';
import type { BenchmarkProgress } from '../core/benchmark/run-benchmark.js';
import type { ModelProfile } from '../core/benchmark/model-profile.js';

/** Measures the current model and stores its profile (`/tsuka benchmark`). */
export interface BenchmarkControl {
  run(onProgress: (progress: BenchmarkProgress) => void): Promise<ModelProfile>;
  running(): boolean;
}
import type { CreatedToolCatalog } from '../core/tools/created-tools.js';
import type { ChannelPolicy, DangerousApproval, ThreadReplies } from '../core/scopes/channel-policy.js';
import type { DangerousRule } from '../core/scopes/approval-rule.js';
import type { ChannelInfo, ChannelRef, ChatSurface } from './chat-surface.js';

/** The model currently in use, switchable with `/tsuka model`. */
export interface ModelControl {
  current(): { model: LanguageModel; tier: ModelTier; providerName: string; textToolCalls?: boolean } | undefined;
  /** Model ids the server offers (empty when unknown). */
  available(): Promise<string[]>;
  select(modelId: string): Promise<void>;
  /** Shown when no model is available: how to start one. */
  unavailableMessage(): string;
  /** Looks for a model server again when none is connected; called before each turn or run starts. */
  refresh?(): Promise<void>;
  /** Whether the current model sees images (asked when a message brings one); absent: it does not. */
  seesImages?(): Promise<boolean>;
  /** The model servers in configured order (a Re-run may pick one when there are several); absent: one. */
  serverUrls?(): readonly string[];
  /** The current model on `server` alone (a Re-run on it); undefined when that server is unknown or down. */
  currentOn?(server: string): ReturnType<ModelControl['current']>;
}

export interface CommandSettings {
  /** Opaque user ids allowed to approve anything and run admin commands. */
  admins: string[];
  /** Allowed channels (opaque ids or the platform's raw ids); undefined = all. */
  channels?: string[];
  approvalTimeoutMs: number;
  defaultCharacter: string;
  plainMentions: boolean;
  /** Requests per user per minute before the rate limit answers. */
  userEventsPerMinute: number;
  agent: Partial<AgentSettings>;
  /** TSUKA_LLM_TIER is set, so a measured profile does not change the tier. */
  tierPinned?: boolean;
  /** Who approves DANGEROUS calls in channels with other people; default `other`. */
  dangerousApproval?: DangerousApproval;
  /** Who is answered in a bot's thread without addressing a character; default `starter`. */
  threadReplies?: ThreadReplies;
  /** Per-channel settings (workspace, default and allowed characters, the two rules above). */
  channelPolicies?: ChannelPolicy[];
  /** IANA time zone of `daily HH:MM` and cron schedules; undefined: the host's. */
  timezone?: string;
  /** The shortest `every` of a schedule in ms (`TSUKA_SCHEDULE_MIN_INTERVAL_S`); undefined: one minute. */
  scheduleMinIntervalMs?: number;
  /** TSUKA_PUBLIC_URL: where Discord and Slack fetch the characters' pictures (`<url>/avatars/<name>.png`). */
  publicUrl?: string;
}

export interface CommandDependencies {
  roster: Roster;
  /** The tools of plain conversations (no coordination tools). */
  tools: ToolRegistry;
  /** Tools made with `create_tool` (already inside `tools`), for `/tsuka tools`. */
  createdTools?: CreatedToolCatalog;
  /** Every tool schema, for workflows that add their own tools (coordination, escalation). */
  toolSchemas: Map<string, ToolSchema>;
  workspace: Workspace;
  childEnv: NodeJS.ProcessEnv;
  /** Launches every agent command; chosen once at start. */
  sandbox: CommandSandbox;
  maskSecrets(text: string): string;
  memory: MemoryStore;
  sessions: SessionStore;
  runs: RunStore;
  approvals: ApprovalStore;
  /** Seen event ids; true the first time an id is seen. */
  dedupe: { markSeen(eventId: string): Promise<boolean> };
  /** The audit trail: append an entry for every decision, export, memory change and admin reach. */
  audit: AuditLog;
  /** For small settings of the command layer (channel defaults, the effort pin). */
  store: Store;
  /** Turns, stops and approval decisions shared with other replicas; in-process when omitted. */
  coordination?: Coordination;
  models: ModelControl;
  logger: Logger;
  settings: CommandSettings;
  /** The tools by source, for `/tsuka tools`. */
  toolGroups?: () => ToolSourceGroup[];
  benchmark?: BenchmarkControl;
  now?: () => number;
  /** The approval policy in force (issue 39), reloaded by `/tsuka policy reload`; absent: none. */
  policy?: PolicySource;
  /** The settings of one channel (set by the command layer from `settings.channelPolicies`). */
  channelSettings?: ChannelSettingsLookup;
}

export interface ChannelSettings {
  workspace: Workspace;
  defaultCharacter?: string;
  /** Characters allowed here; undefined = all. */
  characters?: string[];
  dangerousApproval: DangerousApproval;
  threadReplies: ThreadReplies;
  /** Undefined when the platform could not tell (then treated as a shared channel). */
  info?: ChannelInfo;
  /** The channel's entry in the `channels` section, when it has one. */
  policy?: ChannelPolicy;
}

export interface ChannelSettingsLookup {
  (channel: ChannelRef, surface: ChatSurface): Promise<ChannelSettings>;
  /** Who may decide a DANGEROUS call in the thread's channel. */
  dangerousApprovers(context: { surface: ChatSurface; thread: string }): Promise<DangerousRule>;
}
