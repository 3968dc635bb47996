/**
 * The approval policy (issue 39): who decides which risky call, as configuration. A JSON file
 * (`TSUKA_POLICY_FILE`, default `policy.json` beside `mcp.json`) or the `policy` section of
 * `tsuka.config.json`, validated with this JSON Schema like the roster files.
 */
import type { OwnSchema } from '../validation/own-validator.js';

/** People who may approve: a Slack user group, a Discord role, or named members (`slack:U1`). */
export type PolicyGroup = { slackUsergroup: string } | { discordRole: string } | { members: string[] };

/**
 * What a call under a rule needs: `none` (it runs without asking), `channel` (the channel's own
 * rule, as without a policy), or `required` approvals from `group` (a name in `groups`, or a group).
 */
export type PolicyApproval = 'none' | 'channel' | { group: string | PolicyGroup; required?: number };

export interface PolicyRule {
  name: string;
  /** `slack:T1`, `discord:<guild>`, optionally with a channel: `slack:T1/C1`. Absent: everywhere. */
  workspace?: string;
  /** A glob over execute_command's command line (`kubectl delete *`); the rule then covers that tool only. */
  command?: string;
  /** A glob over the tool's name (`write_file`, `mcp_*`), for the other tools. */
  tool?: string;
  approval: PolicyApproval;
}

export interface ApprovalPolicy {
  groups?: Record<string, PolicyGroup>;
  rules?: PolicyRule[];
  /** What a call no rule matches needs (the rule named "default"). */
  default: { approval: PolicyApproval };
}

const groupSchema = {
  oneOf: [
    { type: 'object', additionalProperties: false, required: ['slackUsergroup'], properties: { slackUsergroup: { type: 'string', pattern: '^S[A-Z0-9]+$' } } },
    { type: 'object', additionalProperties: false, required: ['discordRole'], properties: { discordRole: { type: 'string', pattern: '^[0-9]+$' } } },
    {
      type: 'object',
      additionalProperties: false,
      required: ['members'],
      properties: { members: { type: 'array', minItems: 1, items: { type: 'string', pattern: '^(slack|discord|playground):[A-Za-z0-9_-]+$' } } },
    },
  ],
} as const;

const approvalSchema = {
  oneOf: [
    { enum: ['none', 'channel'] },
    {
      type: 'object',
      additionalProperties: false,
      required: ['group'],
      properties: { group: { anyOf: [{ type: 'string', minLength: 1 }, groupSchema] }, required: { type: 'integer', minimum: 1, maximum: 20 } },
    },
  ],
} as const;

export const policySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['default'],
  properties: {
    $schema: { type: 'string' },
    groups: { type: 'object', additionalProperties: groupSchema },
    rules: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'approval'],
        properties: {
          name: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9 _.-]*$', not: { const: 'default' } },
          workspace: { type: 'string', pattern: '^(slack|discord|playground):[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)?$' },
          command: { type: 'string', minLength: 1 },
          tool: { type: 'string', minLength: 1 },
          approval: approvalSchema,
        },
      },
    },
    default: { type: 'object', additionalProperties: false, required: ['approval'], properties: { approval: approvalSchema } },
  },
} as const;

/** The schema as ajv compiles it (precompiled in the build: `own-validator.ts`). */
export const POLICY_SCHEMA: OwnSchema = { id: 'approvalPolicy', options: { allErrors: true }, load: () => policySchema };
