/**
 * Translation of our `ModelRequest` into an OpenAI `chat.completions` streaming body. Kept apart
 * from the transport so the wire format can be checked without a server.
 */
import type { ChatCompletionCreateParamsStreaming, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ChatMessage, ModelRequest, ToolDefinition } from '../model/language-model.js';

/** Sampling parameters that some OpenAI-compatible servers reject; dropped once a server says so. */
export const DROPPABLE_PARAMETERS = ['top_k', 'min_p', 'repetition_penalty', 'reasoning_effort'] as const;
export type DroppableParameter = (typeof DROPPABLE_PARAMETERS)[number];

/** Maps our messages to OpenAI's: assistant `tool_calls` of type function, tool `tool_call_id`. */
export function toOpenAIMessages(messages: readonly ChatMessage[]): ChatCompletionMessageParam[] {
  return messages.map(toOpenAIMessage);
}

/** One message in OpenAI's form. */
export function toOpenAIMessage(message: ChatMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'user': {
      // Images as OpenAI content parts after the text (data URLs: local servers fetch nothing).
      const content =
        message.images && message.images.length > 0
          ? [
              { type: 'text' as const, text: message.content },
              ...message.images.map((image) => ({ type: 'image_url' as const, image_url: { url: `data:${image.mediaType};base64,${image.data}` } })),
            ]
          : message.content;
      return message.name ? { role: 'user', content, name: message.name } : { role: 'user', content };
    }
    case 'assistant': {
      const toolCalls = message.toolCalls ?? [];
      if (toolCalls.length === 0) return { role: 'assistant', content: message.content };
      return {
        role: 'assistant',
        // The API allows null content beside tool calls; an empty string confuses some templates.
        content: message.content === '' ? null : message.content,
        tool_calls: toolCalls.map((call) => ({
          id: call.id,
          type: 'function' as const,
          function: { name: call.name, arguments: call.arguments },
        })),
      };
    }
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  }
}

/** One offered tool in OpenAI's form. */
export function toOpenAITool(tool: ToolDefinition): { type: 'function'; function: { name: string; description: string; parameters: unknown } } {
  return { type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } };
}

/**
 * The body's fields beside `messages` and `tools`: sampling defaults, then the request's own
 * values, without the parameters the server rejected earlier.
 */
export function chatBodyParameters({ modelId, request, samplingDefaults, dropped }: BuildBodyInput): Record<string, unknown> {
  const extra: Record<string, unknown> = { ...samplingDefaults };
  if (request.temperature !== undefined) extra.temperature = request.temperature;
  if (request.maxOutputTokens !== undefined) extra.max_tokens = request.maxOutputTokens;
  if (request.effort !== undefined) extra.reasoning_effort = request.effort;
  for (const name of dropped) delete extra[name];
  for (const name of RESERVED_FIELDS) delete extra[name];
  if (request.tools && request.tools.length > 0) delete extra.tools;
  return { ...extra, model: modelId };
}

/** Fields the body always sets itself, whatever the sampling defaults say. */
const RESERVED_FIELDS = ['model', 'messages', 'stream', 'stream_options'] as const;

export interface BuildBodyInput {
  modelId: string;
  request: ModelRequest;
  samplingDefaults: Record<string, unknown>;
  dropped: ReadonlySet<string>;
}

/**
 * The streaming request body as an object. Request values win over the sampling defaults; parameters
 * the server rejected earlier are left out. `createChatBodyWriter` writes the same body as JSON.
 */
export function buildChatBody(input: BuildBodyInput): ChatCompletionCreateParamsStreaming {
  const { request } = input;
  const body: Record<string, unknown> = {
    ...chatBodyParameters(input),
    messages: toOpenAIMessages(request.messages),
    stream: true,
    stream_options: { include_usage: true },
  };
  if (request.tools && request.tools.length > 0) body.tools = request.tools.map(toOpenAITool);
  // The SDK's types know OpenAI's parameters only; local servers accept more (top_k, min_p…).
  return body as unknown as ChatCompletionCreateParamsStreaming;
}

/** The droppable parameter a 400 answer names, among those this body actually sent. */
export function findRejectedParameter(errorText: string, body: Record<string, unknown>): DroppableParameter | undefined {
  const named = DROPPABLE_PARAMETERS.find((name) => name in body && new RegExp(`(^|[^a-z_])${name}($|[^a-z_])`, 'i').test(errorText));
  if (named) return named;
  // Ollama turns `reasoning_effort` into `think` and refuses it for models that cannot think.
  if ('reasoning_effort' in body && /does not support thinking|thinking is not supported|think value .* not supported|invalid think value/i.test(errorText))
    return 'reasoning_effort';
  return undefined;
}
