/**
 * Per-channel settings from the `channels` section of `tsuka.config.json`: a channel (by opaque id
 * `slack:T0/C123`, raw platform id `C123`, or `#name`) may get its own workspace folder, default
 * character, allowed characters, approval rule for DANGEROUS calls and thread etiquette. Unmapped
 * channels use the global settings. (A string `channels` stays the allowlist it always was.)
 */
import path from 'node:path';
import { DANGEROUS_APPROVALS, THREAD_REPLIES, type ChannelPolicy, type DangerousApproval, type ThreadReplies } from '../core/scopes/channel-policy.js';

/** JSON Schema of one entry (inside `configFileSchema`). */
export const channelPolicySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    workspace: { type: 'string', minLength: 1 },
    defaultCharacter: { type: 'string', minLength: 1 },
    characters: { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1 },
    dangerousApproval: { enum: [...DANGEROUS_APPROVALS] },
    threadReplies: { enum: [...THREAD_REPLIES] },
  },
} as const;

type RawPolicy = Partial<Record<'workspace' | 'defaultCharacter' | 'dangerousApproval' | 'threadReplies', string>> & { characters?: string[] };

/**
 * The file's `channels` object as policies; workspaces resolved against `directory`. A workspace
 * that contains the data folder is a problem (its agents could read every transcript).
 */
export function readChannelPolicies(raw: unknown, options: { directory: string; dataDirectory: string; problems: string[] }): ChannelPolicy[] {
  if (raw === undefined || raw === null || typeof raw !== 'object' || Array.isArray(raw)) return [];
  const policies: ChannelPolicy[] = [];
  for (const [key, value] of Object.entries(raw as Record<string, RawPolicy>)) {
    const policy: ChannelPolicy = { key };
    if (value.workspace !== undefined) {
      const folder = path.resolve(options.directory, value.workspace);
      const data = options.dataDirectory;
      if (data === folder || data.startsWith(folder.endsWith(path.sep) ? folder : folder + path.sep)) {
        options.problems.push(
          `tsuka.config.json channels."${key}".workspace="${value.workspace}" contains the data folder (${data}): choose a project folder.`,
        );
      } else policy.workspace = folder;
    }
    if (value.defaultCharacter !== undefined) policy.defaultCharacter = value.defaultCharacter.toLowerCase();
    if (value.characters !== undefined) policy.characters = value.characters.map((name) => name.replace(/^@/, '').toLowerCase());
    if (value.dangerousApproval !== undefined) policy.dangerousApproval = value.dangerousApproval as DangerousApproval;
    if (value.threadReplies !== undefined) policy.threadReplies = value.threadReplies as ThreadReplies;
    policies.push(policy);
  }
  return policies;
}

/** A setting that must be one of `allowed`; a problem names the variable and the choices. */
export function oneOf<T extends string>(raw: string | undefined, allowed: readonly T[], fallback: T, name: string, problems: string[]): T {
  if (raw === undefined) return fallback;
  const value = raw.toLowerCase();
  if ((allowed as readonly string[]).includes(value)) return value as T;
  problems.push(`${name}="${raw}" is not valid: use one of ${allowed.join(', ')}.`);
  return fallback;
}
