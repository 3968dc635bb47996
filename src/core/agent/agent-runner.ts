/** The agent runner's contract: one character's turn, from a user message to a final answer. */
import type { Character, Roster } from '../data/types.js';
import type { Logger } from '../logger.js';
import type { ChatMessage, ImagePart, LanguageModel, ReasoningEffort } from '../model/language-model.js';
import type { MemoryContextSource } from '../memory/memory-port.js';
import type { ToolContext, ToolRegistry, ToolServices } from '../tools/tool.js';
import type { AgentSettings } from './agent-defaults.js';
import type { AgentEvent, TurnFinishReason } from './agent-events.js';
import type { PermissionGate } from './permission-gate.js';

export interface AgentRunnerOptions {
  model: LanguageModel;
  tools: ToolRegistry;
  permissions: PermissionGate;
  memory?: MemoryContextSource;
  logger?: Logger;
  settings?: Partial<AgentSettings>;
}

export interface TurnInput {
  character: Character;
  roster: Roster;
  /** The conversation so far, without a system prompt (one is built every turn). */
  history: ChatMessage[];
  userMessage: string;
  userName?: string;
  /** Images attached to the user's message (only for a model that sees images). */
  images?: ImagePart[];
  /** The session's active role; defaults to the character's. */
  activeRole?: string;
  /** Tools loaded with `load_tools` earlier in the session. */
  loadedTools?: string[];
  runId: string;
  /** Opaque platform id of whoever started the run; approvals are theirs to give. */
  requesterId?: string;
  toolContext: Omit<ToolContext, 'signal' | 'runId' | 'agentName' | 'services'> & { services?: ToolServices };
  /** Scope of long-term memory to search (the workspace, or global). */
  memoryScope: string;
  effort?: { pin?: ReasoningEffort; caller?: ReasoningEffort };
  signal: AbortSignal;
  onEvent?: (event: AgentEvent) => void;
  /** False for /call debates: no tools are offered at all. Default true. */
  allowTools?: boolean;
  /** Offer exactly these tools, whatever the role allows (the /call moderator's `record_decision`); `allowTools: false` still wins. */
  onlyTools?: readonly string[];
  extraSystemPrompt?: string;
}

export interface TurnUsage {
  promptTokens: number;
  completionTokens: number;
  /** The largest prompt of the turn: how close it came to the context window. */
  peakContextTokens: number;
  modelCalls: number;
  toolCalls: number;
  /** Time spent in model calls (streaming), without tool runs or approval waits: what tokens/s divides by. */
  modelTimeMs: number;
}

export interface TurnResult {
  /** All visible text of the turn, as streamed (reasoning never included). */
  text: string;
  finishReason: TurnFinishReason;
  /** The whole updated conversation (unpruned, without system prompt or reasoning), always valid. */
  history: ChatMessage[];
  activeRole: string;
  loadedTools: string[];
  usage: TurnUsage;
  /** Set when `finishReason` is `error`; a `ModelError` message is a sentence for the user. */
  error?: Error;
}

export interface AgentRunner {
  /** Runs one turn. Never throws for model or tool failures: they end the turn with reason `error`. */
  runTurn(input: TurnInput): Promise<TurnResult>;
  /** The token estimator's current chars-per-token ratio, calibrated from the server's usage. */
  readonly charsPerToken: number;
}
