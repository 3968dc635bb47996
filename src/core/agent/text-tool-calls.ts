/**
 * The text fallback for models without native tool calling: tools are described in the prompt,
 * and the model writes `<tool_call>{"name": …, "arguments": {…}}</tool_call>` blocks in its text.
 */
import type { ToolCall, ToolDefinition } from '../model/language-model.js';

const OPEN_TAG = '<tool_call>';
const CLOSE_TAG = '</tool_call>';

/** A tool call found in text, shaped like the model's `tool-call` stream part. */
export interface ParsedToolCall {
  toolCall: ToolCall;
  input: unknown;
  inputError?: string;
}

export interface ParsedText {
  /** The text with every tool-call block (and a code fence left empty by it) removed. */
  visibleText: string;
  calls: ParsedToolCall[];
}

/** A code fence around the JSON (```json … ```) is tolerated. */
function stripFence(body: string): string {
  const fenced = /^```[\w-]*\s*\n?([\s\S]*?)\n?```$/.exec(body.trim());
  return (fenced ? fenced[1]! : body).trim();
}

function parseBlock(body: string, id: string): ParsedToolCall {
  const json = stripFence(body);
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { toolCall: { id, name: 'unknown', arguments: json }, input: undefined, inputError: `invalid JSON: ${reason}` };
  }
  if (value === null || typeof value !== 'object' || typeof (value as { name?: unknown }).name !== 'string') {
    return { toolCall: { id, name: 'unknown', arguments: json }, input: undefined, inputError: 'the block needs a "name" string' };
  }
  const { name, arguments: args } = value as { name: string; arguments?: unknown };
  const input = args === undefined ? {} : args;
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return { toolCall: { id, name, arguments: JSON.stringify(args) }, input: undefined, inputError: '"arguments" must be a JSON object' };
  }
  return { toolCall: { id, name, arguments: JSON.stringify(input) }, input };
}

/** Finds the tool-call blocks in `text`; ids are `${idPrefix}${n}`. An unclosed last block counts. */
export function parseTextToolCalls(text: string, idPrefix = 'text_call_'): ParsedText {
  const calls: ParsedToolCall[] = [];
  const pattern = /<tool_call>([\s\S]*?)(?:<\/tool_call>|$)/g;
  const withoutBlocks = text.replace(pattern, (_match, body: string) => {
    calls.push(parseBlock(body, `${idPrefix}${calls.length + 1}`));
    return '';
  });
  if (calls.length === 0) return { visibleText: text, calls };
  const visibleText = withoutBlocks
    .replace(/```[\w-]*\s*```/g, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return { visibleText, calls };
}

/** Length of the longest suffix of `text` that could be the start of `tag`. */
function partialTagLength(text: string, tag: string): number {
  for (let length = Math.min(tag.length - 1, text.length); length > 0; length--) {
    if (tag.startsWith(text.slice(text.length - length))) return length;
  }
  return 0;
}

/** Filters streamed text so that tool-call blocks never reach the chat while they stream. */
export interface ToolCallTextFilter {
  /** The part of `delta` that may be shown now. */
  push(delta: string): string;
  /** Whatever was held back at the end of the stream and may be shown. */
  flush(): string;
}

export function createToolCallTextFilter(): ToolCallTextFilter {
  let buffer = '';
  let insideBlock = false;
  return {
    push(delta) {
      buffer += delta;
      let visible = '';
      for (;;) {
        if (insideBlock) {
          const close = buffer.indexOf(CLOSE_TAG);
          if (close === -1) {
            buffer = buffer.slice(buffer.length - partialTagLength(buffer, CLOSE_TAG));
            return visible;
          }
          buffer = buffer.slice(close + CLOSE_TAG.length);
          insideBlock = false;
        } else {
          const open = buffer.indexOf(OPEN_TAG);
          if (open === -1) {
            const hold = partialTagLength(buffer, OPEN_TAG);
            visible += buffer.slice(0, buffer.length - hold);
            buffer = buffer.slice(buffer.length - hold);
            return visible;
          }
          visible += buffer.slice(0, open);
          buffer = buffer.slice(open + OPEN_TAG.length);
          insideBlock = true;
        }
      }
    },
    flush() {
      const rest = insideBlock ? '' : buffer;
      buffer = '';
      return rest;
    },
  };
}

function describeParameters(parameters: Record<string, unknown>): string[] {
  const properties = parameters['properties'];
  if (properties === null || typeof properties !== 'object') return ['  (no parameters)'];
  const required = Array.isArray(parameters['required']) ? (parameters['required'] as unknown[]) : [];
  return Object.entries(properties as Record<string, unknown>).map(([name, spec]) => {
    const field = spec !== null && typeof spec === 'object' ? (spec as Record<string, unknown>) : {};
    const type = typeof field['type'] === 'string' ? field['type'] : 'any';
    const description = typeof field['description'] === 'string' ? `: ${field['description']}` : '';
    return `  - ${name} (${type}${required.includes(name) ? ', required' : ''})${description}`;
  });
}

/** The prompt section that lists `tools` and shows the exact call format. */
export function formatTextToolCatalog(tools: readonly ToolDefinition[]): string {
  const lines = [
    '## Tools',
    'To call a tool, write exactly one block per call:',
    `${OPEN_TAG}{"name": "tool_name", "arguments": {"parameter": "value"}}${CLOSE_TAG}`,
    'After your calls, stop writing: the results come back in the next message.',
    'Available tools:',
  ];
  for (const tool of tools) {
    lines.push(`- ${tool.name}: ${tool.description}`, ...describeParameters(tool.parameters));
  }
  return lines.join('\n');
}
