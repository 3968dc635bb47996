import { AbortedError, ToolInputError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { ChatMessage, ToolCall } from '../model/language-model.js';
import type { PermissionDecision } from '../safety/permission-port.js';
import type { CallRisk, RiskLevel, ToolContext, ToolRegistry, ToolResult } from '../tools/tool.js';
import { fenceUntrusted } from '../safety/untrusted-content.js';
import { withoutHostPaths } from '../tools/host-paths.js';
import { raceWithAbort } from './abortable.js';
import type { AgentEvent } from './agent-events.js';
import { capToolResult } from './cap-tool-result.js';
import type { PermissionGate } from './permission-gate.js';

export type ToolMessage = Extract<ChatMessage, { role: 'tool' }>;
export type ToolCallOutcome = Extract<AgentEvent, { type: 'tool-call-finished' }>['outcome'];

/** One tool call as the model made it (native part or parsed text block). */
export interface ToolCallRequest {
  toolCall: ToolCall;
  input: unknown;
  inputError?: string;
}

export interface ToolExecutorOptions {
  tools: ToolRegistry;
  permissions: PermissionGate;
  /** Names of the tools offered this round. */
  offeredNames: ReadonlySet<string>;
  /**
   * Tools the role allows that are not offered yet: a direct call loads the tool (from the next
   * round it is offered) and runs it like any other call. Anything else is refused.
   */
  onDemand?: { names: ReadonlySet<string>; load(name: string): void };
  /** Why a tool that is neither offered nor on demand cannot be called (for the refusal). */
  unreachableReason?(name: string): string;
  /** The context tools run with; its `signal` is the turn's. */
  context: ToolContext;
  requesterId?: string;
  maxToolResultTokens: number;
  charsPerToken: number;
  emit(event: AgentEvent): void;
  logger: Logger;
}

/** The tool message for the history and how the call ended. */
export interface ToolExecution {
  message: ToolMessage;
  outcome: ToolCallOutcome;
}

/** The tool result put in the history for a call cut short by Stop. */
export const ABORTED_TOOL_RESULT = 'Aborted by the user.';

const firstLine = (text: string): string => text.split('\n', 1)[0]!.slice(0, 200);
const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error));

function formatSize(text: string): string {
  const bytes = Buffer.byteLength(text);
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
}

function denialNote(decision: PermissionDecision): string {
  if (decision.note) return decision.note;
  return decision.outcome === 'expired' ? 'nobody decided in time (expired)' : 'no reason given';
}

function denialDisplay(decision: PermissionDecision): string {
  if (decision.outcome === 'expired') return 'expired';
  return decision.decidedBy ? `denied by ${decision.decidedBy}` : 'denied';
}

/**
 * The tool message's text, capped; a network tool's output fenced as untrusted text, and the turn
 * marked as having read it (its later network calls ask: issue 41).
 */
function resultForModel(
  result: ToolResult,
  toolName: string,
  options: Pick<ToolExecutorOptions, 'tools' | 'maxToolResultTokens' | 'charsPerToken' | 'context'>,
): { text: string; outcome: 'ok' | 'error'; display: string } {
  const capped = capToolResult(result.output, {
    toolName,
    schema: options.tools.schema(toolName),
    maxTokens: options.maxToolResultTokens,
    charsPerToken: options.charsPerToken,
  });
  if (result.untrusted) options.context.untrusted?.add(result.untrusted);
  const text = result.untrusted ? fenceUntrusted(result.untrusted, capped.text) : capped.text;
  if (result.isError) return { text, outcome: 'error', display: result.display ?? firstLine(result.output) };
  return { text, outcome: 'ok', display: result.display ?? formatSize(result.output) };
}

/**
 * Runs one tool call through the pipeline: offered? → parsable? → valid? → risk → permission →
 * execute → cap. Never throws for a tool's failure: every path ends in a tool message the model
 * reads, and a `tool-call-finished` event.
 */
export async function executeToolCall(request: ToolCallRequest, options: ToolExecutorOptions): Promise<ToolExecution> {
  const { tools, permissions, offeredNames, context, emit, logger } = options;
  const { toolCall } = request;
  const started = performance.now();
  let summary = toolCall.name;
  let startedEmitted = false;

  const emitStarted = (riskLevel: RiskLevel): void => {
    startedEmitted = true;
    emit({ type: 'tool-call-started', toolCall, summary, riskLevel });
  };
  const finish = (content: string, outcome: ToolCallOutcome, display: string): ToolExecution => {
    if (!startedEmitted) emitStarted(tools.schema(toolCall.name)?.riskLevel ?? 'SAFE');
    emit({ type: 'tool-call-finished', toolCall, summary, outcome, display, output: content, durationMs: performance.now() - started });
    return { message: { role: 'tool', toolCallId: toolCall.id, name: toolCall.name, content }, outcome };
  };

  if (!offeredNames.has(toolCall.name)) {
    if (options.onDemand?.names.has(toolCall.name)) {
      options.onDemand.load(toolCall.name);
    } else {
      const available = [...offeredNames, ...(options.onDemand?.names ?? [])];
      const reason = options.unreachableReason ? ` (${options.unreachableReason(toolCall.name)})` : '';
      return finish(
        `Error: the tool ${toolCall.name} is not available to you${reason}. Available tools: ${available.length > 0 ? available.join(', ') : 'none'}.`,
        'refused',
        'not available',
      );
    }
  }
  if (request.inputError !== undefined || request.input === undefined) {
    const reason = request.inputError ?? 'no arguments were given';
    return finish(
      `Error: the arguments for ${toolCall.name} could not be read (${reason}). Call it again with the arguments as one JSON object matching its parameters.`,
      'refused',
      'unreadable arguments',
    );
  }

  let input: Record<string, unknown>;
  try {
    input = tools.validate(toolCall.name, request.input);
  } catch (error) {
    if (!(error instanceof ToolInputError)) {
      logger.error('tool validation failed unexpectedly', { tool: toolCall.name, error });
      return finish(`Error: ${errorMessage(error)}`, 'error', firstLine(errorMessage(error)));
    }
    return finish(`Error: ${error.message}\nFix the arguments and call ${toolCall.name} again.`, 'refused', 'invalid arguments');
  }

  try {
    const risk: CallRisk = await tools.classify(toolCall.name, input, context);
    // What a card shows: never the host's folder of the workspace (host-paths.ts).
    const preview = withoutHostPaths(await tools.preview(toolCall.name, input, context), context.workspace);
    summary = preview.summary;
    emitStarted(risk.level);

    let callContext = context;
    if (risk.level !== 'SAFE') {
      const decision = await raceWithAbort(
        permissions.check(
          {
            id: `${context.runId}:${toolCall.id}`,
            runId: context.runId,
            toolCallId: toolCall.id,
            toolName: toolCall.name,
            riskLevel: risk.level,
            reason: risk.reason,
            summary: preview.summary,
            details: preview.details ?? [],
            agentName: context.agentName,
            requesterId: options.requesterId,
            allowForRun: risk.level === 'RESTRICTED' && !risk.once,
            ...(risk.once ? { decideOnce: true as const } : {}),
            ...(risk.grantScope !== undefined ? { grantScope: risk.grantScope } : {}),
            arguments: input,
          },
          context.signal,
        ),
        context.signal,
        logger,
        'permission check',
      );
      if (decision.outcome === 'denied' || decision.outcome === 'expired') {
        return finish(
          // "by the user" only when someone decided: a headless run or a timeout asked nobody.
          `${decision.decidedBy ? 'Denied by the user' : decision.outcome === 'expired' ? 'Not run' : 'Denied'}: ${denialNote(decision)}. Do not retry the same call; choose another approach or ask.`,
          'denied',
          denialDisplay(decision),
        );
      }
      // A tool whose effect depends on who approved (sharing a memory needs an admin) reads it here.
      if (decision.decidedBy !== undefined) callContext = { ...context, approvedBy: decision.decidedBy };
    }

    const result = await raceWithAbort(tools.execute(toolCall.name, input, callContext), context.signal, logger, toolCall.name);
    const { text, outcome, display } = resultForModel(result, toolCall.name, options);
    return finish(text, outcome, display);
  } catch (error) {
    if (error instanceof AbortedError || context.signal.aborted) return finish(ABORTED_TOOL_RESULT, 'aborted', 'stopped');
    logger.warn('tool call failed', { tool: toolCall.name, error });
    const message = errorMessage(error);
    return finish(`Error: ${message}`, 'error', firstLine(message));
  }
}
