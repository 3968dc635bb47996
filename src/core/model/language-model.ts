/**
 * The language-model port: streaming chat with tools. The provider (OpenAI-compatible) and the
 * scripted fake model used in tests both implement it. Reasoning never reaches `text-delta`.
 */
import type { SlotTicket } from '../coordination/slot-priority.js';

export type ReasoningEffort = 'none' | 'low' | 'medium' | 'xhigh';

/** A tool call as the model emitted it, with its arguments already assembled across chunks. */
export interface ToolCall {
  id: string;
  name: string;
  /** The raw argument text as the model sent it (possibly repaired, see `ModelToolCallPart`). */
  arguments: string;
}

/** An image for a model that sees images: base64 bytes and their media type (`image/png`). */
export interface ImagePart {
  mediaType: string;
  data: string;
}

export type ChatMessage =
  | { role: 'system'; content: string }
  /** `images` go to the model after the text (a vision-capable model only; never stored in a session). */
  | { role: 'user'; content: string; name?: string; images?: ImagePart[] }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[]; name?: string }
  | { role: 'tool'; toolCallId: string; name: string; content: string };

/** JSON Schema object describing a tool's parameters. */
export type JsonSchema = Record<string, unknown>;

export interface ToolDefinition {
  name: string;
  description: string;
  parameters: JsonSchema;
}

export interface ModelRequest {
  messages: ChatMessage[];
  tools?: ToolDefinition[];
  effort?: ReasoningEffort;
  temperature?: number;
  maxOutputTokens?: number;
  signal?: AbortSignal;
}

export interface ModelUsage {
  promptTokens: number;
  completionTokens: number;
  /** The server's own measure (llama.cpp `timings`), when it sends one. */
  generationTokensPerSecond?: number;
  promptTokensPerSecond?: number;
}

export type FinishReason = 'stop' | 'tool-calls' | 'length' | 'content-filter' | 'other';

export type ModelStreamPart =
  | { type: 'text-delta'; text: string }
  | { type: 'reasoning-delta'; text: string }
  /**
   * A complete tool call. `input` is the parsed (and, if needed, repaired) arguments;
   * when the arguments could not be parsed at all, `input` is undefined and `inputError` says why.
   */
  | {
      type: 'tool-call';
      toolCall: ToolCall;
      input: unknown;
      inputError?: string;
      repaired?: boolean;
      repairNotes?: string[];
      /** Set when the model wrote the call as text (`<tool_call>…`, `[TOOL_CALLS]`…) rather than the server parsing it. */
      textForm?: 'hermes' | 'qwen3-coder' | 'mistral' | 'bare-json';
    }
  | { type: 'usage'; usage: ModelUsage }
  | { type: 'finish'; reason: FinishReason };

export interface LanguageModel {
  /** Provider id from the catalogue (e.g. `ollama`), or `scripted` in tests. */
  readonly providerId: string;
  readonly modelId: string;
  /** The context window in tokens when known (read from the server at discovery). */
  readonly contextWindow?: number;
  /** Streams one generation. Throws `ModelError` (or `AbortedError` when `request.signal` fires). */
  stream(request: ModelRequest): AsyncIterable<ModelStreamPart>;
}

/** Where a waiting request stands: its 1-based place, and the seconds until a slot when the speed is known. */
export interface QueueEstimate {
  position: number;
  seconds?: number;
}

/** A waiting request as `/tsuka queue` lists it (every replica's). */
export interface QueuedRequest extends QueueEstimate {
  ticket: SlotTicket;
  waitedMs: number;
}

/** A model behind the generation queue (`queued-model.ts`, `server-pool-model.ts`): callers may ask where a request waits. */
export interface QueuedModel extends LanguageModel {
  /** 1-based place in the queue (across every replica) of the request made with `signal`; undefined when it is not waiting. */
  position(signal: AbortSignal): number | undefined;
  /** The place and expected wait of the request made with `signal`; undefined when it is not waiting. */
  estimate(signal: AbortSignal): QueueEstimate | undefined;
  /**
   * Requests made with `signal` (a run's abort signal: every model call of the run carries it) wait
   * with this ticket: its class decides who goes first. Untagged requests are a person's.
   */
  tag(signal: AbortSignal, ticket: SlotTicket): void;
  /** Every replica's waiting requests, in the order they will be served, with their estimates. */
  queue(): Promise<QueuedRequest[]>;
  /** How many of this process's requests wait. */
  waiting(): number;
}
