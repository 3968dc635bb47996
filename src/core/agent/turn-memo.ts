/**
 * Work the agent loop would otherwise repeat over the whole session on every tool round: the
 * offered tool list (rebuilt from the registry) and the set of tool-call ids already used.
 */
import type { ChatMessage } from '../model/language-model.js';
import type { ToolCallRequest } from './tool-executor.js';
import type { Role } from '../data/types.js';
import type { ModelTier, ToolRegistry } from '../tools/tool.js';
import { exactTools, offeredTools, type OfferedTools, type OfferedToolsInput } from './offered-tools.js';

/** `offered` plus the on-demand names as a set, as the tool executor wants them. */
export interface OfferedRound extends OfferedTools {
  onDemandNames: Set<string>;
}

/**
 * `offeredTools` for one turn, rebuilt only when its inputs change: another role object, tier or
 * loaded-tool set, or another list of tool names in the registry (a tool created or a source's
 * tools added or withdrawn mid-turn).
 */
export function createOfferedToolsMemo(): (input: OfferedToolsInput) => OfferedRound {
  let last: { input: OfferedToolsInput; loaded: string; names: string; offered: OfferedRound } | undefined;
  return (input) => {
    const loaded = [...input.loadedTools].join('\n');
    const names = input.tools.names().join('\n');
    if (
      last !== undefined &&
      last.input.role === input.role &&
      last.input.tools === input.tools &&
      last.input.tier === input.tier &&
      last.loaded === loaded &&
      last.names === names
    ) {
      return last.offered;
    }
    const computed = offeredTools(input);
    const offered = { ...computed, onDemandNames: new Set(computed.onDemand.map((tool) => tool.name)) };
    last = { input, loaded, names, offered };
    return offered;
  };
}

const NO_TOOLS: OfferedRound = { definitions: [], names: new Set(), onDemand: [], onDemandNames: new Set() };

/**
 * The tools of each round of one turn: none for `allowTools: false` (a /call debater), exactly
 * `onlyTools` when given (the /call moderator's `record_decision`), else the role's (memoised).
 */
export function createTurnOffer(
  input: { allowTools?: boolean; onlyTools?: readonly string[] },
  tools: ToolRegistry,
  tier: ModelTier,
): (role: Role, loadedTools: Iterable<string>) => OfferedRound {
  if (input.allowTools === false) return () => NO_TOOLS;
  if (input.onlyTools) {
    const only: OfferedRound = { ...exactTools(input.onlyTools, tools, tier), onDemandNames: new Set() };
    return () => only;
  }
  const memo = createOfferedToolsMemo();
  return (role, loadedTools) => memo({ role, loadedTools, tools, tier });
}

/**
 * Some local servers number tool calls from zero on every answer (or send none); ids must be unique
 * within the conversation because results and approvals are keyed on them: a
 * missing or repeated id gets a round suffix. The ids already used are read from the conversation
 * once per turn, then kept as the turn adds calls, instead of rescanning the history every round.
 */
export function createCallIdLedger(conversation: readonly ChatMessage[]): (calls: ToolCallRequest[], round: number) => ToolCallRequest[] {
  const seen = new Set(conversation.flatMap((message) => (message.role === 'assistant' ? (message.toolCalls ?? []).map((call) => call.id) : [])));
  return (calls, round) =>
    calls.map((call, index) => {
      let id = call.toolCall.id;
      if (id === '' || seen.has(id)) id = `${id || 'call'}_r${round}_${index + 1}`;
      seen.add(id);
      return id === call.toolCall.id ? call : { ...call, toolCall: { ...call.toolCall, id } };
    });
}
