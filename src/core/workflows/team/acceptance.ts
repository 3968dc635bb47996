/**
 * Acceptance checks of pipeline stations (design §5): a command that must exit 0, a file that must
 * exist, a file that must hold valid JSON. Commands go through the permission port like any
 * command: SAFE runs, anything else asks in the thread; a denial fails the check.
 */
import { readFile, stat } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import type { AcceptanceCheck } from '../../data/types.js';
import type { Workspace } from '../../tools/tool.js';
import { WORKSPACE_WORD } from '../../tools/host-paths.js';
import type { PermissionManager } from '../../safety/permission-manager.js';
import type { CommandSandbox } from '../../safety/command-sandbox.js';
import { classifyCommand } from '../../safety/command-risk.js';
import { gitCommandEnv } from '../../safety/git-env.js';
import { runCommand } from '../../safety/process-runner.js';

export const ACCEPTANCE_COMMAND_TIMEOUT_MS = 300_000;
const REPORT_TAIL_CHARS = 1_500;

export interface AcceptanceResult {
  passed: boolean;
  /** One line per check: what passed, what failed and why (fed back to the member on failure). */
  report: string[];
}

export interface AcceptanceOptions {
  workspace: Workspace;
  childEnv: NodeJS.ProcessEnv;
  /** Acceptance commands run workspace code the members wrote: sandboxed like any agent command. */
  sandbox: CommandSandbox;
  permissions: PermissionManager;
  maskSecrets(text: string): string;
  runId: string;
  requesterId?: string;
  signal: AbortSignal;
}

async function checkCommand(check: Extract<AcceptanceCheck, { type: 'command' }>, options: AcceptanceOptions): Promise<{ ok: boolean; line: string }> {
  const risk = classifyCommand(check.command, {
    workspaceRoot: options.workspace.root,
    ...(options.childEnv.PATH !== undefined ? { path: options.childEnv.PATH } : {}),
  });
  if (risk.level !== 'SAFE') {
    const decision = await options.permissions.check(
      {
        id: randomBytes(6).toString('hex'),
        runId: options.runId,
        toolCallId: `acceptance-${randomBytes(4).toString('hex')}`,
        toolName: 'acceptance_check',
        riskLevel: risk.level,
        reason: risk.reason,
        summary: `acceptance check: ${check.command}`,
        details: [`command: ${check.command}`, `cwd: ${WORKSPACE_WORD}`],
        agentName: 'acceptance',
        ...(options.requesterId ? { requesterId: options.requesterId } : {}),
        allowForRun: risk.level === 'RESTRICTED',
        ...(risk.grantScope !== undefined ? { grantScope: risk.grantScope } : {}),
        arguments: { command: check.command },
      },
      options.signal,
    );
    if (decision.outcome !== 'approved' && decision.outcome !== 'approved-for-run') {
      return { ok: false, line: `✖ \`${check.command}\` was not run: ${decision.note ?? decision.outcome}` };
    }
  }
  const result = await runCommand({
    command: check.command,
    cwd: options.workspace.root,
    sandbox: options.sandbox,
    env: await gitCommandEnv(options.childEnv, options.workspace.root),
    timeoutMs: check.timeoutMs ?? ACCEPTANCE_COMMAND_TIMEOUT_MS,
    signal: options.signal,
  });
  if (result.exitCode === 0) return { ok: true, line: `✔ \`${check.command}\` exited 0` };
  const why = result.timedOut ? 'timed out' : result.aborted ? 'was stopped' : `exited ${result.exitCode ?? result.signalName}`;
  const tail = options.maskSecrets(result.output.slice(-REPORT_TAIL_CHARS)).trim();
  return { ok: false, line: `✖ \`${check.command}\` ${why}${tail ? `:\n${tail}` : ''}` };
}

async function checkFile(
  check: Extract<AcceptanceCheck, { type: 'file-exists' | 'json-valid' }>,
  workspace: Workspace,
): Promise<{ ok: boolean; line: string }> {
  let absolute: string;
  try {
    absolute = await workspace.resolve(check.path);
  } catch (error) {
    return { ok: false, line: `✖ ${check.path}: ${error instanceof Error ? error.message : String(error)}` };
  }
  const found = await stat(absolute).then(
    (info) => info.isFile(),
    () => false,
  );
  if (!found) return { ok: false, line: `✖ ${check.path} does not exist` };
  if (check.type === 'file-exists') return { ok: true, line: `✔ ${check.path} exists` };
  try {
    JSON.parse(await readFile(absolute, 'utf8'));
    return { ok: true, line: `✔ ${check.path} is valid JSON` };
  } catch (error) {
    return { ok: false, line: `✖ ${check.path} is not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** Runs every check (all of them, so the feedback is complete). */
export async function runAcceptanceChecks(checks: readonly AcceptanceCheck[], options: AcceptanceOptions): Promise<AcceptanceResult> {
  const report: string[] = [];
  let passed = true;
  for (const check of checks) {
    const result = check.type === 'command' ? await checkCommand(check, options) : await checkFile(check, options.workspace);
    passed &&= result.ok;
    report.push(result.line);
  }
  return { passed, report };
}
