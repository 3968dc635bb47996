import type { ChatMessage, ToolDefinition } from '../model/language-model.js';
import { CHARS_PER_TOKEN_SMOOTHING, MAX_CHARS_PER_TOKEN, MESSAGE_OVERHEAD_CHARS, MIN_CHARS_PER_TOKEN } from './agent-defaults.js';

/**
 * Token counts estimated from character counts. Local servers each tokenize differently, so the
 * ratio is calibrated from the `usage.promptTokens` the server reports for prompts we measured.
 */
export interface TokenEstimator {
  /** The current chars-per-token ratio. */
  readonly charsPerToken: number;
  tokensForText(text: string): number;
  tokensForMessages(messages: readonly ChatMessage[]): number;
  /** Characters a prompt costs, measured the same way `tokensForMessages` measures them. */
  promptChars(messages: readonly ChatMessage[], tools?: readonly ToolDefinition[]): number;
  /** Moves the ratio towards what the server reported for a prompt of `promptChars` characters. */
  calibrate(promptChars: number, promptTokens: number): void;
}

/** What an image is counted as: vision models spend a few hundred to ~1,500 tokens on one. */
const IMAGE_CHARS = 4_000;

/** The characters one message costs, its text plus a fixed overhead for role and framing. */
export function messageChars(message: ChatMessage): number {
  let chars = MESSAGE_OVERHEAD_CHARS + message.content.length;
  if (message.role === 'tool') chars += message.name.length + message.toolCallId.length;
  if ((message.role === 'user' || message.role === 'assistant') && message.name) chars += message.name.length;
  if (message.role === 'user' && message.images) chars += message.images.length * IMAGE_CHARS;
  if (message.role === 'assistant' && message.toolCalls) {
    for (const call of message.toolCalls) chars += call.name.length + call.arguments.length + call.id.length;
  }
  return chars;
}

/** Serialised size of each tool's parameters, by schema object, and of each whole definition, by definition object. */
const parameterChars = new WeakMap<object, number>();
const definitionChars = new WeakMap<ToolDefinition, number>();

/** `JSON.stringify(tools).length`, without serialising every definition again on every round. */
function toolsChars(tools: readonly ToolDefinition[]): number {
  let chars = 1 + tools.length; // brackets and commas
  for (const tool of tools) {
    let size = definitionChars.get(tool);
    if (size === undefined) {
      let parameters = parameterChars.get(tool.parameters);
      if (parameters === undefined) {
        parameters = JSON.stringify(tool.parameters).length;
        parameterChars.set(tool.parameters, parameters);
      }
      size = JSON.stringify({ name: tool.name, description: tool.description, parameters: null }).length - 'null'.length + parameters;
      definitionChars.set(tool, size);
    }
    chars += size;
  }
  return chars;
}

const clamp = (value: number): number => Math.min(MAX_CHARS_PER_TOKEN, Math.max(MIN_CHARS_PER_TOKEN, value));

/** An estimator starting at `initialCharsPerToken`. */
export function createTokenEstimator(initialCharsPerToken: number): TokenEstimator {
  let charsPerToken = clamp(initialCharsPerToken);
  const tokensForChars = (chars: number): number => Math.ceil(chars / charsPerToken);
  return {
    get charsPerToken() {
      return charsPerToken;
    },
    tokensForText: (text) => tokensForChars(text.length),
    tokensForMessages: (messages) => tokensForChars(messages.reduce((sum, message) => sum + messageChars(message), 0)),
    promptChars(messages, tools) {
      const messageTotal = messages.reduce((sum, message) => sum + messageChars(message), 0);
      return messageTotal + (tools && tools.length > 0 ? toolsChars(tools) : 0);
    },
    calibrate(promptChars, promptTokens) {
      if (!(promptChars > 0) || !(promptTokens > 0)) return;
      const observed = clamp(promptChars / promptTokens);
      charsPerToken = clamp(charsPerToken + (observed - charsPerToken) * CHARS_PER_TOKEN_SMOOTHING);
    },
  };
}
