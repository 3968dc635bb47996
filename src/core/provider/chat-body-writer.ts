/**
 * Writes the streaming request body as JSON without serialising the whole history on every round:
 * each message is serialised once and its JSON kept beside it (messages are never changed once
 * they are in a history), each tool once per schema, and a round's body is those pieces joined.
 * A turn of N rounds then serialises N new messages, not N² of them. The result is the JSON of
 * `buildChatBody` (same fields, same order).
 */
import type { ChatMessage, ToolDefinition } from '../model/language-model.js';
import { chatBodyParameters, toOpenAIMessage, toOpenAITool, type BuildBodyInput } from './chat-request.js';

/** A body ready to send, and its parameters (everything but messages and tools) for error checks. */
export interface WrittenChatBody {
  json: string;
  parameters: Record<string, unknown>;
}

export interface ChatBodyWriter {
  write(input: BuildBodyInput): WrittenChatBody;
}

/** The system prompt is a new message each round with mostly the same text: this many texts are kept. */
const SYSTEM_PROMPTS_KEPT = 8;
const STREAM_FIELDS = '"stream":true,"stream_options":{"include_usage":true}';

interface CachedMessage {
  /** The content it was written from: a changed content is written again. */
  content: string;
  json: string;
}

interface CachedTool {
  name: string;
  description: string;
  json: string;
}

/** Creates a writer whose caches live as long as it does (and as the messages they describe). */
export function createChatBodyWriter(): ChatBodyWriter {
  const messages = new WeakMap<ChatMessage, CachedMessage>();
  const systemPrompts = new Map<string, string>();
  const tools = new WeakMap<object, CachedTool>();

  const messageJson = (message: ChatMessage): string => {
    const cached = messages.get(message);
    if (cached && cached.content === message.content) return cached.json;
    if (message.role === 'system') return systemJson(message.content);
    const json = JSON.stringify(toOpenAIMessage(message));
    messages.set(message, { content: message.content, json });
    return json;
  };

  const systemJson = (content: string): string => {
    let json = systemPrompts.get(content);
    if (json === undefined) {
      json = JSON.stringify(toOpenAIMessage({ role: 'system', content }));
      if (systemPrompts.size >= SYSTEM_PROMPTS_KEPT) systemPrompts.delete(systemPrompts.keys().next().value!);
      systemPrompts.set(content, json);
    }
    return json;
  };

  const toolJson = (tool: ToolDefinition): string => {
    const key = typeof tool.parameters === 'object' && tool.parameters !== null ? tool.parameters : undefined;
    const cached = key ? tools.get(key) : undefined;
    if (cached && cached.name === tool.name && cached.description === tool.description) return cached.json;
    const json = JSON.stringify(toOpenAITool(tool));
    if (key) tools.set(key, { name: tool.name, description: tool.description, json });
    return json;
  };

  return {
    write(input) {
      const parameters = chatBodyParameters(input);
      const head = JSON.stringify(parameters);
      let json = `${head.slice(0, -1)}${head.length > 2 ? ',' : ''}"messages":[`;
      const history = input.request.messages;
      for (let index = 0; index < history.length; index += 1) json += (index === 0 ? '' : ',') + messageJson(history[index]!);
      json += `],${STREAM_FIELDS}`;
      const offered = input.request.tools;
      if (offered && offered.length > 0) {
        json += ',"tools":[';
        for (let index = 0; index < offered.length; index += 1) json += (index === 0 ? '' : ',') + toolJson(offered[index]!);
        json += ']';
      }
      return { json: `${json}}`, parameters };
    },
  };
}
