/**
 * The approval policy's source (issue 39): `TSUKA_POLICY_FILE` (it must exist), else the `policy`
 * section of tsuka.config.json, else `policy.json` beside `mcp.json` when present. A policy that
 * does not validate is a configuration problem: start stops and doctor says why (fail closed).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parsePolicy, PolicyError, readPolicyFile } from '../core/policy/policy-file.js';
import type { ApprovalPolicy } from '../core/policy/policy-schema.js';

export interface PolicyConfig {
  /** The file it was read from (read again on `/tsuka policy reload`); absent for the config file's section. */
  file?: string;
  /** Absent: no policy (each channel's `dangerousApproval` decides, as before). */
  policy?: ApprovalPolicy;
}

export function readPolicyConfig(input: { configured: string | undefined; section: unknown; mcpFile: string }, problems: string[]): PolicyConfig {
  const besideMcp = path.join(path.dirname(input.mcpFile), 'policy.json');
  const file =
    input.configured !== undefined ? path.resolve(path.dirname(input.mcpFile), input.configured) : input.section === undefined ? besideMcp : undefined;
  try {
    if (file === undefined) return { policy: parsePolicy(input.section, 'tsuka.config.json /policy') };
    if (input.configured === undefined && !existsSync(file)) return {};
    if (!existsSync(file)) throw new PolicyError([`TSUKA_POLICY_FILE names ${file}, which does not exist: create it or unset TSUKA_POLICY_FILE.`]);
    return { file, policy: readPolicyFile(file) };
  } catch (error) {
    if (!(error instanceof PolicyError)) throw error;
    problems.push(...error.problems.map((problem) => `approval policy: ${problem}`));
    return file ? { file } : {};
  }
}
