import { AbortedError, TsukaError } from '../errors.js';
import { silentLogger, type Logger } from '../logger.js';
import type { ChatMessage, ToolDefinition } from '../model/language-model.js';
import { createUntrustedContent } from '../safety/untrusted-content.js';
import type { Role } from '../data/types.js';
import type { ToolContext } from '../tools/tool.js';
import { raceWithAbort } from './abortable.js';
import { createAgentControl, findRole, type AgentSessionState } from './agent-control.js';
import { resolveAgentSettings } from './agent-defaults.js';
import type { AgentEvent, TurnFinishReason } from './agent-events.js';
import type { AgentRunner, AgentRunnerOptions, TurnInput, TurnResult, TurnUsage } from './agent-runner.js';
import { resolveEffort } from './effort.js';
import { runModelStep } from './model-step.js';
import { formatOnDemandSection, unreachableReason } from './offered-tools.js';
import { budgetAfterContextError } from './context-retry.js';
import { buildSystemPrompt, buildUserMessage, type SystemPromptParts } from './prompt-builder.js';
import { pruneHistory } from './prune-history.js';
import { firstStopCondition, hasNoToolCalls, toolRoundCountIs } from './stop-conditions.js';
import { formatTextToolCatalog } from './text-tool-calls.js';
import { TEXT_TOOL_CALL_HINT, TIER_DEFAULTS } from './tier-defaults.js';
import { createTokenEstimator, type TokenEstimator } from './token-estimator.js';
import { ABORTED_TOOL_RESULT, executeToolCall } from './tool-executor.js';
import { createCallIdLedger, createTurnOffer } from './turn-memo.js';

/** The sentence appended when the loop hits its round limit. */
export const maxRoundsNote = (rounds: number): string => `I stopped after ${rounds} tool rounds without finishing; say 'continue' to go on.`;

/** Gives every tool call of the last assistant message a result, so the history is never orphaned. */
function closeOpenToolCalls(conversation: ChatMessage[]): void {
  let index = conversation.length - 1;
  while (index >= 0 && conversation[index]!.role === 'tool') index--;
  const last = conversation[index];
  if (last?.role !== 'assistant' || !last.toolCalls) return;
  const answered = new Set(conversation.slice(index + 1).flatMap((message) => (message.role === 'tool' ? [message.toolCallId] : [])));
  for (const call of last.toolCalls) {
    if (!answered.has(call.id)) {
      conversation.push({ role: 'tool', toolCallId: call.id, name: call.name, content: ABORTED_TOOL_RESULT });
    }
  }
}

function requireRole(state: AgentSessionState): Role {
  const role = findRole(state, state.activeRole);
  if (!role) {
    throw new TsukaError('role_missing', `The role "${state.activeRole}" of ${state.character.name} is not in the roster.`);
  }
  return role;
}

/**
 * The agent loop: builds the prompt, streams the model, runs tool calls (asking permission for
 * risky ones), feeds results back, and stops on a final answer, the round limit, an error or Stop.
 */
/** The system message of one round: the prompt's parts, the tools as this round offers them, the untrusted-text section. */
function roundSystemMessage(round: {
  parts: Omit<SystemPromptParts, 'toolCatalog' | 'onDemandTools' | 'untrusted'>;
  offered: { definitions: ToolDefinition[]; onDemand: Parameters<typeof formatOnDemandSection>[0] };
  textMode: boolean;
  expectsTextCalls: boolean;
  untrusted: readonly string[];
}): ChatMessage {
  const { offered } = round;
  const toolCatalog =
    offered.definitions.length === 0
      ? undefined
      : round.textMode
        ? formatTextToolCatalog(offered.definitions)
        : round.expectsTextCalls
          ? TEXT_TOOL_CALL_HINT
          : undefined;
  return {
    role: 'system',
    content: buildSystemPrompt({ ...round.parts, toolCatalog, onDemandTools: formatOnDemandSection(offered.onDemand), untrusted: round.untrusted }),
  };
}

export function createAgentRunner(options: AgentRunnerOptions): AgentRunner {
  const { model, tools, permissions, memory } = options;
  const logger = options.logger ?? silentLogger;
  const settings = resolveAgentSettings(model, options.settings);
  const estimator: TokenEstimator = createTokenEstimator(settings.initialCharsPerToken);
  const extraRoles = new Map<string, Role>();

  async function loadMemory(input: TurnInput, turnLogger: Logger): Promise<string> {
    if (!memory) return '';
    try {
      const context = memory.contextFor(input.userMessage, { scope: input.memoryScope, budgetChars: settings.memoryBudgetChars });
      return await raceWithAbort(context, input.signal, turnLogger, 'memory lookup');
    } catch (error) {
      if (error instanceof AbortedError) throw error;
      turnLogger.warn('memory lookup failed; answering without memory', { error });
      return '';
    }
  }

  async function runTurn(input: TurnInput): Promise<TurnResult> {
    const { character, roster, signal } = input;
    const turnLogger = logger.child({ runId: input.runId, agent: character.name });
    const emit = (event: AgentEvent): void => {
      try {
        input.onEvent?.(event);
      } catch (error) {
        turnLogger.warn('an agent event listener threw', { error, event: event.type });
      }
    };
    const state: AgentSessionState = {
      character,
      roster,
      extraRoles,
      activeRole: input.activeRole ?? character.activeRole,
      loadedTools: new Set(input.loadedTools ?? []),
      tools,
      tier: settings.tier,
    };
    requireRole(state);
    const trait = roster.traits.get(character.trait);
    const conversation: ChatMessage[] = [
      ...input.history.filter((message) => message.role !== 'system'),
      buildUserMessage(input.userMessage, input.userName, input.images),
    ];
    // What the turn has read from outside its requester (shared with the caller's, when it tracks one).
    const untrusted = input.toolContext.untrusted ?? createUntrustedContent();
    const usage: TurnUsage = { promptTokens: 0, completionTokens: 0, peakContextTokens: 0, modelCalls: 0, toolCalls: 0, modelTimeMs: 0 };
    const toolContext: ToolContext = {
      ...input.toolContext,
      signal,
      runId: input.runId,
      agentName: character.name,
      // Read per call: `switch_skill` may change the active role within the turn.
      roleNetwork: () => findRole(state, state.activeRole)?.network ?? true,
      services: { ...input.toolContext.services, agent: createAgentControl(state) },
      untrusted,
    };
    let text = '';
    let blockStarted = false;
    const appendText = (delta: string): void => {
      if (!blockStarted && text !== '' && !text.endsWith('\n\n')) {
        const separator = text.endsWith('\n') ? '\n' : '\n\n';
        text += separator;
        emit({ type: 'text-delta', text: separator });
      }
      blockStarted = true;
      text += delta;
      emit({ type: 'text-delta', text: delta });
    };
    const finish = (reason: TurnFinishReason, error?: Error): TurnResult => {
      if (reason === 'aborted') closeOpenToolCalls(conversation);
      emit(error ? { type: 'finish', reason, text, error } : { type: 'finish', reason, text });
      const result: TurnResult = {
        text,
        finishReason: reason,
        history: conversation,
        activeRole: state.activeRole,
        loadedTools: [...state.loadedTools],
        usage,
      };
      return error ? { ...result, error } : result;
    };

    let memoryText: string;
    try {
      memoryText = await loadMemory(input, turnLogger);
    } catch (error) {
      if (error instanceof AbortedError) return finish('aborted');
      throw error;
    }

    const stopConditions = { stop: hasNoToolCalls(), 'max-rounds': toolRoundCountIs(settings.maxToolRounds) };
    let toolRounds = 0;
    let historyBudget = settings.historyBudgetTokens;
    // Once per turn: the server said the prompt does not fit its context window.
    let contextRetried = false;
    const offeredFor = createTurnOffer(input, tools, settings.tier);
    const uniqueCallIds = createCallIdLedger(conversation);
    for (let round = 1; ; round++) {
      if (signal.aborted) return finish('aborted');
      const role = requireRole(state);
      const offered = offeredFor(role, state.loadedTools);
      const textMode = !settings.nativeToolCalling;
      const expectsTextCalls = settings.textToolCallsExpected ?? TIER_DEFAULTS[settings.tier].textToolCalls;
      const system = roundSystemMessage({
        parts: { character, role, trait, memory: memoryText, extraSystemPrompt: input.extraSystemPrompt },
        offered,
        textMode,
        expectsTextCalls,
        untrusted: untrusted.sources(),
      });
      const pruned = pruneHistory({
        system,
        history: conversation,
        budgetTokens: historyBudget,
        tokensForMessages: (messages) => estimator.tokensForMessages(messages),
      });
      if (pruned.removedMessages > 0) emit({ type: 'history-pruned', removedMessages: pruned.removedMessages });
      const messages = [system, ...pruned.history];
      const requestTools = !textMode && offered.definitions.length > 0 ? offered.definitions : undefined;
      const effort = resolveEffort({
        pin: input.effort?.pin,
        caller: input.effort?.caller,
        character: character.reasoningEffort,
        role: role.reasoningEffort,
        configDefault: settings.defaultEffort,
        tierDefault: TIER_DEFAULTS[settings.tier].effort,
      });

      emit({ type: 'model-call-started', round });
      blockStarted = false;
      const modelStartedAt = performance.now();
      const step = await runModelStep({
        model,
        request: { messages, ...(requestTools ? { tools: requestTools } : {}), ...(effort ? { effort } : {}), signal },
        textToolCalls: textMode,
        textCallIdPrefix: `text_call_${round}_`,
        onText: appendText,
        emit,
        logger: turnLogger,
      });
      usage.modelCalls++;
      usage.modelTimeMs += performance.now() - modelStartedAt;
      for (const part of step.usage) {
        usage.promptTokens += part.promptTokens;
        usage.completionTokens += part.completionTokens;
        usage.peakContextTokens = Math.max(usage.peakContextTokens, part.promptTokens);
      }
      const reportedPrompt = step.usage.at(-1)?.promptTokens ?? 0;
      if (reportedPrompt > 0) estimator.calibrate(estimator.promptChars(messages, requestTools), reportedPrompt);

      if (step.error) {
        if (step.error instanceof AbortedError || signal.aborted) {
          if (step.text !== '') conversation.push({ role: 'assistant', content: step.text, name: character.name });
          return finish('aborted');
        }
        const retryBudget =
          !contextRetried && step.text === '' ? budgetAfterContextError(step.error, historyBudget, { messages, tools: requestTools, estimator }) : undefined;
        if (retryBudget !== undefined) {
          turnLogger.warn('the prompt did not fit the context window; retrying once with a pruned history', { round, budgetTokens: retryBudget });
          contextRetried = true;
          historyBudget = retryBudget;
          round--;
          continue;
        }
        turnLogger.warn('model call failed', { error: step.error, round });
        return finish('error', step.error);
      }

      const calls = uniqueCallIds(step.toolCalls, round);
      conversation.push({
        role: 'assistant',
        content: textMode && calls.length > 0 ? step.rawText : step.text,
        name: character.name,
        ...(calls.length > 0 ? { toolCalls: calls.map((call) => call.toolCall) } : {}),
      });
      if (calls.length > 0) toolRounds++;
      for (const call of calls) {
        if (signal.aborted) break;
        const execution = await executeToolCall(call, {
          tools,
          permissions,
          offeredNames: offered.names,
          onDemand: { names: offered.onDemandNames, load: (name) => state.loadedTools.add(name) },
          unreachableReason: (name) => unreachableReason(name, { role, tools, tier: settings.tier }),
          context: toolContext,
          requesterId: input.requesterId,
          maxToolResultTokens: settings.maxToolResultTokens,
          charsPerToken: estimator.charsPerToken,
          emit,
          logger: turnLogger,
        });
        usage.toolCalls++;
        conversation.push(execution.message);
      }
      if (signal.aborted) return finish('aborted');

      const stop = firstStopCondition(stopConditions, {
        toolRounds,
        lastToolCallCount: calls.length,
        lastFinishReason: step.finishReason,
      });
      if (stop === 'stop') return finish(step.finishReason === 'length' ? 'length' : 'stop');
      if (stop === 'max-rounds') {
        const note = maxRoundsNote(toolRounds);
        blockStarted = false;
        appendText(note);
        conversation.push({ role: 'assistant', content: note, name: character.name });
        return finish('max-rounds');
      }
    }
  }

  return {
    get charsPerToken() {
      return estimator.charsPerToken;
    },
    runTurn,
  };
}
