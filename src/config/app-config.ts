/** The whole configuration, read once at start by `loadConfig` and injected everywhere else. */
import type { PolicyConfig } from './policy-config.js';
import type { ReasoningEffort } from '../core/model/language-model.js';
import type { SandboxConfig } from './sandbox-config.js';
import type { TelemetryConfig } from './telemetry-config.js';
import type { McpServerConfig } from '../core/tools/mcp/mcp-config.js';
import type { ChannelPolicy, DangerousApproval, ThreadReplies } from '../core/scopes/channel-policy.js';
import type { StoreSecurityConfig } from './store-security-config.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
/** `auto`: human-readable lines on a terminal, JSON lines otherwise. */
export type LogFormat = 'json' | 'pretty' | 'auto';

export interface SlackConfig {
  botToken: string;
  /** Socket Mode when set; otherwise the HTTP Events API with `signingSecret`. */
  appToken?: string;
  signingSecret?: string;
  apiUrl: string;
}

export interface DiscordConfig {
  botToken: string;
  apiUrl: string;
  guildIds: string[];
}

export interface LlmConfig {
  /** The first configured server (the primary: discovery and messages name it); unset: discovery. */
  baseURL?: string;
  /** Every configured server (`TSUKA_LLM_BASE_URL`, comma-separated), serving the same model; empty: discovery. */
  baseURLs: string[];
  modelId?: string;
  apiKey?: string;
  firstTokenTimeoutMs: number;
  generationTimeoutMs: number;
  /** Generations at once per server; unset: 1 for LOCAL servers (one GPU), 4 for CLOUD ones. */
  concurrency?: number;
  defaultEffort?: ReasoningEffort;
  /** A measured or known tier that wins over the guess from the model's name. */
  tier?: 'SMALL' | 'MEDIUM' | 'LARGE';
  /** `TSUKA_LLM_VISION`: the model sees images (1) or not (0); unset: asked of the server when an image comes. */
  vision?: boolean;
}

export interface AppConfig {
  /** The folder that holds roles/, traits/, characters/, teams/, tools_schemas/ and providers.json. */
  rootDirectory: string;
  slack?: SlackConfig;
  discord?: DiscordConfig;
  httpPort: number;
  /** Interface the HTTP server binds: loopback by default; `0.0.0.0` in containers. */
  httpHost: string;
  llm: LlmConfig;
  dataDirectory: string;
  workspace: string;
  storeUrl?: string;
  /** Redis without a password refused unless allowed; the approval signing secret (`TSUKA_APPROVAL_KEY`). */
  storeSecurity: StoreSecurityConfig;
  /** With Redis: how often a replica renews its lease, and when a silent replica's lease expires. */
  replicaHeartbeatMs: number;
  replicaLeaseMs: number;
  /** The `replica` label of every metric (`TSUKA_REPLICA_NAME`): stable across restarts; the host name when unset. */
  replicaName: string;
  /** Runs (with their events) and sessions older than this are pruned hourly; 0 keeps everything. */
  retentionDays: number;
  /** Audit log entries older than this are pruned hourly (longer than runs by default); 0 keeps them all. */
  auditRetentionDays: number;
  /** Opaque platform user ids (`slack:U0123`, `discord:81234`). */
  admins: string[];
  /** Channel ids allowed (opaque or raw); undefined = every channel the bot is in. */
  channels?: string[];
  approvalTimeoutMs: number;
  /** Who may approve DANGEROUS calls in channels with other people (`TSUKA_DANGEROUS_APPROVAL`). */
  dangerousApproval: DangerousApproval;
  /** Who is answered in a bot's thread without addressing a character (`TSUKA_THREAD_REPLIES`). */
  threadReplies: ThreadReplies;
  /** Per-channel settings (the `channels` section of tsuka.config.json). */
  channelPolicies: ChannelPolicy[];
  plainMentions: boolean;
  logLevel: LogLevel;
  logFormat: LogFormat;
  defaultCharacter: string;
  streamEditIntervalMs: number;
  maxToolRounds: number;
  /** Rounds of a /team run whose team sets no `rounds`. */
  teamMaxRounds: number;
  /** /goal shows its plan with Run plan / Edit / Cancel and waits (`TSUKA_GOAL_CONFIRM`, default on); off: runs at once. */
  goalConfirm: boolean;
  /** IANA time zone of `daily HH:MM` and cron schedules (`TSUKA_TIMEZONE`); undefined: the host's. */
  timezone?: string;
  /** The shortest `every` a schedule may have (`TSUKA_SCHEDULE_MIN_INTERVAL_S`, default 60 s), in ms. */
  scheduleMinIntervalMs: number;
  maxToolResultTokens: number;
  memoryMaxFacts: number;
  /** Mentions, messages and commands one user may send per minute before the bot asks them to wait (buttons never count). */
  userEventsPerMinute: number;
  enableCreateTool: boolean;
  searchUrl?: string;
  /** TSUKA_PUBLIC_URL (no trailing slash): where Discord and Slack can reach this host's HTTP server to fetch the characters' pictures. */
  publicUrl?: string;
  /** How agent commands are isolated (chosen at start from these). */
  sandbox: SandboxConfig;
  /** MCP servers from `TSUKA_MCP_CONFIG` (default `mcp.json` in the working directory, when present). */
  mcp: { file?: string; servers: McpServerConfig[] };
  /** The approval policy (`TSUKA_POLICY_FILE`, the `policy` section, or `policy.json` beside mcp.json): policy-config.ts. */
  policy: PolicyConfig;
  /** `/metrics`' token and the OpenTelemetry trace export (`telemetry-config.ts`). */
  telemetry: TelemetryConfig;
  /** Every environment variable, kept only to build the scrubbed child environment and the secret masker. */
  environment: NodeJS.ProcessEnv;
}
