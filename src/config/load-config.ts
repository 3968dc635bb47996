/**
 * Reads configuration once: environment (plus `.env` when present) over `tsuka.config.json`.
 * Every problem is collected and reported as one line naming the setting and the fix.
 */
import { existsSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { parseEnv } from 'node:util';
import type { AppConfig, LogFormat, LogLevel } from './app-config.js';
import { CONFIG_FILE_SCHEMA } from './config-file-schema.js';
import { ownValidator } from '../core/validation/own-validator.js';
import { readSandboxConfig } from './sandbox-config.js';
import { readTelemetryConfig } from './telemetry-config.js';
import { parseModelServerUrls } from './model-servers-config.js';
import { readStoreSecurityConfig } from './store-security-config.js';
import { storeUrlWithRedisPassword } from './redis-password-setting.js';
import { loadMcpConfigFile, type McpServerConfig } from '../core/tools/mcp/mcp-config.js';
import { readPolicyConfig, type PolicyConfig } from './policy-config.js';
import { oneOf, readChannelPolicies } from './channel-policies.js';
import { DANGEROUS_APPROVALS, THREAD_REPLIES } from '../core/scopes/channel-policy.js';

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

const EFFORTS = ['none', 'low', 'medium', 'xhigh'] as const;
const LOG_LEVELS: LogLevel[] = ['debug', 'info', 'warn', 'error'];
const LOG_FORMATS: LogFormat[] = ['json', 'pretty', 'auto'];

export interface LoadConfigOptions {
  environment: NodeJS.ProcessEnv;
  /** Where `.env` and `tsuka.config.json` are looked up (the current directory). */
  workingDirectory: string;
  /** The package root holding the data folders. */
  rootDirectory: string;
}

export function loadConfig(options: LoadConfigOptions): AppConfig {
  const problems: string[] = [];
  const environment = { ...readDotEnv(options.workingDirectory, problems), ...options.environment };
  const file = readConfigFile(options.workingDirectory, problems);
  const setting = (envName: string, fileKey: string): string | undefined => {
    const fromEnv = environment[envName];
    if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
    const fromFile = file[fileKey];
    return fromFile === undefined || fromFile === null ? undefined : String(fromFile);
  };
  /** Secrets come from the environment only, never from tsuka.config.json. */
  const secret = (envName: string): string | undefined => {
    const value = environment[envName];
    return value === undefined || value === '' ? undefined : value;
  };
  const integer = (envName: string, fileKey: string, fallback: number, min: number, max: number): number => {
    const raw = setting(envName, fileKey);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${envName}="${raw}" is not valid: use a whole number from ${min} to ${max}.`);
      return fallback;
    }
    return value;
  };
  const flag = (envName: string, fileKey: string): boolean => {
    const raw = setting(envName, fileKey);
    if (raw === undefined) return false;
    if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true;
    if (['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false;
    problems.push(`${envName}="${raw}" is not valid: use 1 or 0.`);
    return false;
  };
  const url = (envName: string, fileKey: string, fallback?: string): string | undefined => {
    const raw = setting(envName, fileKey) ?? fallback;
    if (raw === undefined) return undefined;
    try {
      const parsed = new URL(raw);
      if (!['http:', 'https:'].includes(parsed.protocol)) throw new Error('protocol');
      return raw;
    } catch {
      problems.push(`${envName}="${raw}" is not a valid http(s) URL: use e.g. http://127.0.0.1:11434/v1.`);
      return fallback;
    }
  };
  const list = (envName: string, fileKey: string): string[] | undefined => {
    const raw = setting(envName, fileKey);
    if (raw === undefined) return undefined;
    return raw.split(/[\s,]+/).filter(Boolean);
  };

  const slackBotToken = secret('SLACK_BOT_TOKEN');
  const slackAppToken = secret('SLACK_APP_TOKEN');
  const slackSigningSecret = secret('SLACK_SIGNING_SECRET');
  if (slackBotToken !== undefined && !slackBotToken.startsWith('xoxb-')) {
    problems.push('SLACK_BOT_TOKEN must start with "xoxb-": copy the Bot User OAuth Token from your Slack app\'s OAuth & Permissions page.');
  }
  if (slackAppToken !== undefined && !slackAppToken.startsWith('xapp-')) {
    problems.push('SLACK_APP_TOKEN must start with "xapp-": create an app-level token with the connections:write scope (Basic Information page).');
  }
  if (slackBotToken !== undefined && slackAppToken === undefined && slackSigningSecret === undefined) {
    problems.push('SLACK_BOT_TOKEN is set but neither SLACK_APP_TOKEN (Socket Mode, recommended) nor SLACK_SIGNING_SECRET (HTTP mode) is: set one of them.');
  }
  if (slackBotToken === undefined && (slackAppToken !== undefined || slackSigningSecret !== undefined)) {
    problems.push('SLACK_APP_TOKEN or SLACK_SIGNING_SECRET is set without SLACK_BOT_TOKEN: set the xoxb- bot token too.');
  }
  const slackApiUrl = url('SLACK_API_URL', 'slackApiUrl', 'https://slack.com/api/') ?? 'https://slack.com/api/';
  const discordBotToken = secret('DISCORD_BOT_TOKEN');
  const discordApiUrl = url('DISCORD_API_URL', 'discordApiUrl', 'https://discord.com/api') ?? 'https://discord.com/api';

  const admins = list('TSUKA_ADMINS', 'admins') ?? [];
  for (const admin of admins) {
    if (!/^(slack|discord|playground):[A-Za-z0-9_.-]+$/.test(admin)) {
      problems.push(`TSUKA_ADMINS entry "${admin}" is not valid: write platform:userId, e.g. slack:U0123 or discord:81234.`);
    }
  }
  const effortRaw = setting('TSUKA_LLM_EFFORT', 'effort');
  let defaultEffort: (typeof EFFORTS)[number] | undefined;
  if (effortRaw !== undefined) {
    if ((EFFORTS as readonly string[]).includes(effortRaw)) defaultEffort = effortRaw as (typeof EFFORTS)[number];
    else problems.push(`TSUKA_LLM_EFFORT="${effortRaw}" is not valid: use one of ${EFFORTS.join(', ')}.`);
  }
  const tierRaw = setting('TSUKA_LLM_TIER', 'llmTier')?.toUpperCase();
  let tier: 'SMALL' | 'MEDIUM' | 'LARGE' | undefined;
  if (tierRaw !== undefined) {
    if (tierRaw === 'SMALL' || tierRaw === 'MEDIUM' || tierRaw === 'LARGE') tier = tierRaw;
    else problems.push(`TSUKA_LLM_TIER="${tierRaw}" is not valid: use SMALL, MEDIUM or LARGE.`);
  }
  const logLevelRaw = (setting('TSUKA_LOG_LEVEL', 'logLevel') ?? 'info').toLowerCase();
  if (!LOG_LEVELS.includes(logLevelRaw as LogLevel)) {
    problems.push(`TSUKA_LOG_LEVEL="${logLevelRaw}" is not valid: use one of ${LOG_LEVELS.join(', ')}.`);
  }
  const logFormatRaw = (setting('TSUKA_LOG_FORMAT', 'logFormat') ?? 'auto').toLowerCase();
  if (!LOG_FORMATS.includes(logFormatRaw as LogFormat)) {
    problems.push(`TSUKA_LOG_FORMAT="${logFormatRaw}" is not valid: use json or pretty (unset: pretty on a terminal, JSON otherwise).`);
  }
  const dataDirectory = path.resolve(options.workingDirectory, setting('TSUKA_DATA_DIR', 'dataDir') ?? 'data');
  const workspace = path.resolve(options.workingDirectory, setting('TSUKA_WORKSPACE', 'workspace') ?? path.join(dataDirectory, 'workspace'));
  // The agents' jail must not hold the bot's own state or secrets: SAFE read_file would expose them.
  const inside = (outer: string, inner: string) => inner === outer || inner.startsWith(outer.endsWith(path.sep) ? outer : outer + path.sep);
  if (inside(workspace, dataDirectory)) {
    problems.push(
      `TSUKA_WORKSPACE="${workspace}" contains TSUKA_DATA_DIR (${dataDirectory}): agents could read every transcript and approval; point the workspace at a project folder, not above the data folder.`,
    );
  }
  const dotEnv = path.join(options.workingDirectory, '.env');
  if (existsSync(dotEnv) && inside(workspace, dotEnv)) {
    problems.push(`TSUKA_WORKSPACE="${workspace}" contains ${dotEnv} with the bot's secrets: choose a workspace folder that does not include it.`);
  }
  const modelServers = parseModelServerUrls(setting('TSUKA_LLM_BASE_URL', 'llmBaseUrl'), problems);
  const storeUrl = storeUrlWithRedisPassword(setting('TSUKA_STORE_URL', 'storeUrl'), environment.TSUKA_REDIS_PASSWORD, problems);
  if (storeUrl !== undefined && !/^(sqlite|redis|rediss|postgres|postgresql|mysql|mongodb|memory):/.test(storeUrl)) {
    problems.push(`TSUKA_STORE_URL="${storeUrl}" is not a keyv URL: use e.g. sqlite://./data/tsuka.sqlite.`);
  }
  const storeSecurity = readStoreSecurityConfig({ environment, storeUrl, problems });

  const config: AppConfig = {
    rootDirectory: options.rootDirectory,
    slack:
      slackBotToken === undefined ? undefined : { botToken: slackBotToken, appToken: slackAppToken, signingSecret: slackSigningSecret, apiUrl: slackApiUrl },
    discord:
      discordBotToken === undefined
        ? undefined
        : { botToken: discordBotToken, apiUrl: discordApiUrl, guildIds: list('TSUKA_DISCORD_GUILD_IDS', 'discordGuildIds') ?? [] },
    httpPort: integer('TSUKA_HTTP_PORT', 'httpPort', 3000, 0, 65535),
    httpHost: setting('TSUKA_HTTP_HOST', 'httpHost') ?? '127.0.0.1',
    llm: {
      baseURL: modelServers[0],
      baseURLs: modelServers,
      modelId: setting('TSUKA_LLM_MODEL', 'llmModel'),
      apiKey: secret('TSUKA_LLM_API_KEY'),
      firstTokenTimeoutMs: integer('TSUKA_LLM_FIRST_TOKEN_TIMEOUT_S', 'llmFirstTokenTimeoutS', 120, 1, 3600) * 1000,
      generationTimeoutMs: integer('TSUKA_LLM_TIMEOUT_S', 'llmTimeoutS', 900, 1, 86_400) * 1000,
      concurrency: setting('TSUKA_LLM_CONCURRENCY', 'llmConcurrency') === undefined ? undefined : integer('TSUKA_LLM_CONCURRENCY', 'llmConcurrency', 1, 1, 64),
      defaultEffort,
      tier,
      ...(setting('TSUKA_LLM_VISION', 'llmVision') === undefined ? {} : { vision: flag('TSUKA_LLM_VISION', 'llmVision') }),
    },
    dataDirectory,
    workspace,
    storeUrl,
    storeSecurity,
    retentionDays: integer('TSUKA_RETENTION_DAYS', 'retentionDays', 90, 0, 36_500),
    auditRetentionDays: integer('TSUKA_AUDIT_RETENTION_DAYS', 'auditRetentionDays', 365, 0, 36_500),
    replicaHeartbeatMs: integer('TSUKA_REPLICA_HEARTBEAT_MS', 'replicaHeartbeatMs', 10_000, 100, 600_000),
    replicaLeaseMs: integer('TSUKA_REPLICA_LEASE_MS', 'replicaLeaseMs', 30_000, 300, 3_600_000),
    replicaName: setting('TSUKA_REPLICA_NAME', 'replicaName') ?? hostname(),
    admins,
    // `channels` in the file is the allowlist when a string, per-channel settings when an object.
    channels: typeof file.channels === 'object' && file.channels !== null ? list('TSUKA_CHANNELS', '') : list('TSUKA_CHANNELS', 'channels'),
    channelPolicies: readChannelPolicies(file.channels, { directory: options.workingDirectory, dataDirectory, problems }),
    approvalTimeoutMs: integer('TSUKA_APPROVAL_TIMEOUT_S', 'approvalTimeoutS', 600, 1, 86_400) * 1000,
    dangerousApproval: oneOf(setting('TSUKA_DANGEROUS_APPROVAL', 'dangerousApproval'), DANGEROUS_APPROVALS, 'other', 'TSUKA_DANGEROUS_APPROVAL', problems),
    threadReplies: oneOf(setting('TSUKA_THREAD_REPLIES', 'threadReplies'), THREAD_REPLIES, 'starter', 'TSUKA_THREAD_REPLIES', problems),
    plainMentions: flag('TSUKA_PLAIN_MENTIONS', 'plainMentions'),
    logLevel: (LOG_LEVELS.includes(logLevelRaw as LogLevel) ? logLevelRaw : 'info') as LogLevel,
    logFormat: (LOG_FORMATS.includes(logFormatRaw as LogFormat) ? logFormatRaw : 'auto') as LogFormat,
    defaultCharacter: (setting('TSUKA_DEFAULT_CHARACTER', 'defaultCharacter') ?? 'geordi').toLowerCase(),
    streamEditIntervalMs: integer('TSUKA_STREAM_EDIT_MS', 'streamEditMs', 1000, 200, 10_000),
    maxToolRounds: integer('TSUKA_MAX_TOOL_ROUNDS', 'maxToolRounds', 15, 1, 100),
    teamMaxRounds: integer('TSUKA_TEAM_MAX_ROUNDS', 'teamMaxRounds', 3, 1, 20),
    goalConfirm: setting('TSUKA_GOAL_CONFIRM', 'goalConfirm') === undefined ? true : flag('TSUKA_GOAL_CONFIRM', 'goalConfirm'),
    timezone: timeZone(setting('TSUKA_TIMEZONE', 'timezone'), problems),
    scheduleMinIntervalMs: integer('TSUKA_SCHEDULE_MIN_INTERVAL_S', 'scheduleMinIntervalS', 60, 1, 86_400) * 1000,
    maxToolResultTokens: integer('TSUKA_MAX_TOOL_RESULT_TOKENS', 'maxToolResultTokens', 4000, 200, 100_000),
    memoryMaxFacts: integer('TSUKA_MEMORY_MAX_FACTS', 'memoryMaxFacts', 200, 10, 100_000),
    userEventsPerMinute: integer('TSUKA_USER_EVENTS_PER_MINUTE', 'userEventsPerMinute', 20, 1, 10_000),
    enableCreateTool: flag('TSUKA_ENABLE_CREATE_TOOL', 'enableCreateTool'),
    searchUrl: url('TSUKA_SEARCH_URL', 'searchUrl'),
    publicUrl: url('TSUKA_PUBLIC_URL', 'publicUrl')?.replace(/\/+$/, ''),
    sandbox: readSandboxConfig({
      setting,
      problems,
      // What a command must never see: the bot's state, its own source, the folder of its .env, its home.
      hiddenPaths: [
        dataDirectory,
        options.rootDirectory,
        ...(existsSync(dotEnv) ? [options.workingDirectory] : []),
        ...(environment.HOME ? [path.resolve(environment.HOME)] : []),
      ],
    }),
    ...readMcpAndPolicy(setting, file.policy, options.workingDirectory, problems),
    telemetry: readTelemetryConfig(environment, problems),
    environment,
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** An IANA zone name the runtime knows (`Europe/Berlin`), else a problem. */
function timeZone(raw: string | undefined, problems: string[]): string | undefined {
  if (raw === undefined) return undefined;
  try {
    new Intl.DateTimeFormat('en', { timeZone: raw });
    return raw;
  } catch (error) {
    problems.push(`TSUKA_TIMEZONE="${raw}" is not a time zone (${(error as Error).message}): use an IANA name such as Europe/Berlin or UTC.`);
    return undefined;
  }
}

/** The MCP servers, and the approval policy (its default file lies beside mcp.json: policy-config.ts). */
function readMcpAndPolicy(
  setting: (envName: string, fileKey: string) => string | undefined,
  section: unknown,
  directory: string,
  problems: string[],
): { mcp: { file?: string; servers: McpServerConfig[] }; policy: PolicyConfig } {
  const configured = setting('TSUKA_MCP_CONFIG', 'mcpConfig');
  const mcp = readMcpServers(configured, directory, problems);
  const mcpFile = path.resolve(directory, configured ?? 'mcp.json');
  return { mcp, policy: readPolicyConfig({ configured: setting('TSUKA_POLICY_FILE', 'policyFile'), section, mcpFile }, problems) };
}

/** `TSUKA_MCP_CONFIG` names the file (it must exist); without it `mcp.json` is read when present. */
function readMcpServers(configured: string | undefined, directory: string, problems: string[]): { file?: string; servers: McpServerConfig[] } {
  const file = path.resolve(directory, configured ?? 'mcp.json');
  if (configured === undefined && !existsSync(file)) return { servers: [] };
  try {
    return { file, servers: loadMcpConfigFile(file) };
  } catch (error) {
    problems.push(`TSUKA_MCP_CONFIG: ${(error as Error).message}`);
    return { file, servers: [] };
  }
}

function readDotEnv(directory: string, problems: string[]): Record<string, string> {
  const file = path.join(directory, '.env');
  if (!existsSync(file)) return {};
  try {
    return parseEnv(readFileSync(file, 'utf8')) as Record<string, string>;
  } catch (error) {
    problems.push(`.env could not be read (${(error as Error).message}): fix or remove ${file}.`);
    return {};
  }
}

function readConfigFile(directory: string, problems: string[]): Record<string, unknown> {
  const file = path.join(directory, 'tsuka.config.json');
  if (!existsSync(file)) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    problems.push(`tsuka.config.json is not valid JSON (${(error as Error).message}): fix the file at ${file}.`);
    return {};
  }
  const validate = ownValidator(CONFIG_FILE_SCHEMA);
  if (!validate(parsed)) {
    for (const error of validate.errors ?? []) {
      const where = error.instancePath || '/';
      const extra = error.keyword === 'additionalProperties' ? ` "${String((error.params as { additionalProperty?: string }).additionalProperty)}"` : '';
      problems.push(`tsuka.config.json ${where}${extra}: ${error.message ?? 'invalid'} — see the README's configuration table.`);
    }
    return {};
  }
  return parsed as Record<string, unknown>;
}
