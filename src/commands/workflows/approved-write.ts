/**
 * A file written by TSUKA on a person's behalf (a decision record, a merge a character proposed),
 * through the same path as an agent's `write_file`: the registry's checks and risk, the change's
 * preview (a diff when it replaces a file) on the approval card, the permission manager's decision.
 */
import { AbortedError } from '../../core/errors.js';
import type { PermissionManager } from '../../core/safety/permission-manager.js';
import type { ToolContext } from '../../core/tools/tool.js';
import type { CommandDependencies } from '../command-dependencies.js';

export type ApprovedWriteOutcome = { ok: true; output: string; decidedBy?: string } | { ok: false; outcome: 'denied' | 'expired' | 'failed'; note: string };

export interface ApprovedWriteInput {
  deps: Pick<CommandDependencies, 'tools' | 'workspace' | 'childEnv' | 'sandbox' | 'maskSecrets' | 'logger'>;
  permissions: PermissionManager;
  runId: string;
  /** Who writes, as the approval card names it (`TSUKA`, a character's file name). */
  agentName: string;
  requesterId: string;
  /** Workspace-relative path and the whole new content. */
  path: string;
  content: string;
  signal: AbortSignal;
}

export async function writeWithApproval(input: ApprovedWriteInput): Promise<ApprovedWriteOutcome> {
  const { deps } = input;
  const context: ToolContext = {
    workspace: deps.workspace,
    signal: input.signal,
    childEnv: deps.childEnv,
    sandbox: deps.sandbox,
    maskSecrets: deps.maskSecrets,
    runId: input.runId,
    agentName: input.agentName,
    logger: deps.logger,
    services: {},
  };
  try {
    const arguments_ = deps.tools.validate('write_file', { path: input.path, content: input.content });
    const risk = await deps.tools.classify('write_file', arguments_, context);
    const preview = await deps.tools.preview('write_file', arguments_, context);
    let decidedBy: string | undefined;
    if (risk.level !== 'SAFE') {
      const decision = await input.permissions.check(
        {
          id: `${input.runId}:write-${Date.now().toString(36)}`,
          runId: input.runId,
          toolCallId: `write-${Date.now().toString(36)}`,
          toolName: 'write_file',
          riskLevel: risk.level,
          reason: risk.reason,
          summary: preview.summary,
          details: preview.details ?? [],
          agentName: input.agentName,
          requesterId: input.requesterId,
          allowForRun: risk.level === 'RESTRICTED',
          ...(risk.grantScope !== undefined ? { grantScope: risk.grantScope } : {}),
          arguments: arguments_,
        },
        input.signal,
      );
      if (decision.outcome === 'denied' || decision.outcome === 'expired') {
        return { ok: false, outcome: decision.outcome, note: decision.note ?? (decision.outcome === 'expired' ? 'nobody decided in time' : 'denied') };
      }
      decidedBy = decision.decidedBy;
    }
    const result = await deps.tools.execute('write_file', arguments_, { ...context, ...(decidedBy ? { approvedBy: decidedBy } : {}) });
    if (result.isError) return { ok: false, outcome: 'failed', note: result.output };
    return { ok: true, output: result.output, ...(decidedBy ? { decidedBy } : {}) };
  } catch (error) {
    if (error instanceof AbortedError || input.signal.aborted) throw error instanceof AbortedError ? error : new AbortedError(undefined, { cause: error });
    deps.logger.warn('an approved write failed', { path: input.path, error });
    return { ok: false, outcome: 'failed', note: error instanceof Error ? error.message : String(error) };
  }
}
