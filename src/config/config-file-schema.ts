import type { OwnSchema } from '../core/validation/own-validator.js';
import { channelPolicySchema } from './channel-policies.js';
import { DANGEROUS_APPROVALS, THREAD_REPLIES } from '../core/scopes/channel-policy.js';

/** JSON Schema of `tsuka.config.json`: non-secret settings only (secrets come from the environment). */
export const configFileSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    $schema: { type: 'string' },
    slackApiUrl: { type: 'string' },
    discordApiUrl: { type: 'string' },
    discordGuildIds: { type: 'string' },
    httpPort: { type: 'integer', minimum: 0, maximum: 65535 },
    httpHost: { type: 'string' },
    // One URL, several comma-separated, or a list of them.
    llmBaseUrl: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, minItems: 1 }] },
    llmModel: { type: 'string' },
    llmFirstTokenTimeoutS: { type: 'integer', minimum: 1 },
    llmTimeoutS: { type: 'integer', minimum: 1 },
    llmConcurrency: { type: 'integer', minimum: 1 },
    effort: { enum: ['none', 'low', 'medium', 'xhigh'] },
    llmTier: { enum: ['SMALL', 'MEDIUM', 'LARGE', 'small', 'medium', 'large'] },
    llmVision: { type: 'boolean' },
    dataDir: { type: 'string' },
    workspace: { type: 'string' },
    storeUrl: { type: 'string' },
    retentionDays: { type: 'integer', minimum: 0 },
    auditRetentionDays: { type: 'integer', minimum: 0 },
    replicaHeartbeatMs: { type: 'integer', minimum: 100 },
    replicaLeaseMs: { type: 'integer', minimum: 300 },
    replicaName: { type: 'string', minLength: 1 },
    admins: { type: 'string' },
    // A string: the allowlist (as TSUKA_CHANNELS). An object: per-channel settings (channel-policies.ts).
    channels: { anyOf: [{ type: 'string' }, { type: 'object', additionalProperties: channelPolicySchema }] },
    dangerousApproval: { enum: [...DANGEROUS_APPROVALS] },
    threadReplies: { enum: [...THREAD_REPLIES] },
    approvalTimeoutS: { type: 'integer', minimum: 1 },
    plainMentions: { type: 'boolean' },
    logLevel: { enum: ['debug', 'info', 'warn', 'error'] },
    logFormat: { enum: ['json', 'pretty', 'auto'] },
    defaultCharacter: { type: 'string' },
    streamEditMs: { type: 'integer', minimum: 200 },
    maxToolRounds: { type: 'integer', minimum: 1 },
    teamMaxRounds: { type: 'integer', minimum: 1, maximum: 20 },
    goalConfirm: { type: 'boolean' },
    timezone: { type: 'string' },
    scheduleMinIntervalS: { type: 'integer', minimum: 1 },
    maxToolResultTokens: { type: 'integer', minimum: 200 },
    memoryMaxFacts: { type: 'integer', minimum: 10 },
    userEventsPerMinute: { type: 'integer', minimum: 1, maximum: 10000 },
    enableCreateTool: { type: 'boolean' },
    searchUrl: { type: 'string' },
    publicUrl: { type: 'string' },
    sandbox: { enum: ['auto', 'bubblewrap', 'none'] },
    sandboxNetwork: { oneOf: [{ type: 'boolean' }, { enum: ['auto', 'user', 'none', 'host'] }] },
    sandboxHide: { type: 'string' },
    sandboxAllow: { type: 'string' },
    sandboxMaxProcesses: { type: 'integer', minimum: 8 },
    sandboxMaxMemoryMb: { type: 'integer', minimum: 64 },
    sandboxMaxFileMb: { type: 'integer', minimum: 1 },
    sandboxTmpfsMb: { type: 'integer', minimum: 1 },
    sandboxMaxOutputMb: { type: 'integer', minimum: 1 },
    sandboxUser: { type: 'string' },
    mcpConfig: { type: 'string' },
    policyFile: { type: 'string' },
    // The approval policy itself, checked against its own schema (src/core/policy/policy-schema.ts).
    policy: { type: 'object' },
  },
} as const;

/** The schema as ajv compiles it (precompiled in the build: `own-validator.ts`). */
export const CONFIG_FILE_SCHEMA: OwnSchema = { id: 'configFile', options: { allErrors: true }, load: () => configFileSchema };
