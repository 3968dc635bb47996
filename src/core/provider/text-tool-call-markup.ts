/**
 * The shapes in which local models write tool calls as text when the server does not parse them
 * (an Ollama model without a tool template, llama.cpp without `--jinja`, a vLLM server started with
 * another tool parser): Hermes/Qwen `<tool_call>{json}</tool_call>`, Qwen3-Coder
 * `<function=name><parameter=x>…</parameter></function>` (with or without the `<tool_call>` wrapper),
 * Mistral `[TOOL_CALLS][{…}]` / `[TOOL_CALLS]name{json}` / `[TOOL_CALLS]name[ARGS]{json}`, and a bare
 * JSON object `{"name": …, "arguments": …}` that is the whole answer. Each reader takes the text of
 * one block and returns the calls it could read, or why not.
 */
import type { ToolDefinition } from '../model/language-model.js';
import { repairJsonArguments } from './json-repair.js';

/** Which text form a model used; `tsuka benchmark` records it in the model's profile. */
export type TextToolCallForm = 'hermes' | 'qwen3-coder' | 'mistral' | 'bare-json';

export const TEXT_TOOL_CALL_FORMS: readonly TextToolCallForm[] = ['hermes', 'qwen3-coder', 'mistral', 'bare-json'];

/** A tool call read from text: its name, its arguments as JSON text, and the parsed input or why not. */
export interface TextToolCall {
  form: TextToolCallForm;
  name: string;
  arguments: string;
  input?: Record<string, unknown>;
  inputError?: string;
}

export const TOOL_CALL_OPEN = '<tool_call>';
export const TOOL_CALL_CLOSE = '</tool_call>';
export const FUNCTION_OPEN = '<function=';
export const FUNCTION_CLOSE = '</function>';
export const MISTRAL_MARKER = '[TOOL_CALLS]';

const FUNCTION_BLOCK = /<function=([^>\n]+)>([\s\S]*?)(?:<\/function>|$)/g;
const PARAMETER_BLOCK = /<parameter=([^>\n]+)>([\s\S]*?)(?:<\/parameter>|(?=<parameter=)|$)/g;

/** The body of a `<tool_call>` block: JSON (Hermes/Qwen) or `<function=…>` (Qwen3-Coder). */
export function readTaggedBlock(body: string, tools: readonly ToolDefinition[]): TextToolCall[] {
  if (body.includes(FUNCTION_OPEN)) return readFunctionBlocks(body, tools);
  return [readJsonCall(body, 'hermes')];
}

/** One or more Qwen3-Coder `<function=name>` blocks; parameter values are typed by the tool's schema. */
export function readFunctionBlocks(text: string, tools: readonly ToolDefinition[]): TextToolCall[] {
  const calls: TextToolCall[] = [];
  for (const match of text.matchAll(FUNCTION_BLOCK)) {
    const name = match[1]!.trim();
    const properties = schemaProperties(tools.find((tool) => tool.name === name));
    const input: Record<string, unknown> = {};
    for (const parameter of match[2]!.matchAll(PARAMETER_BLOCK)) {
      const key = parameter[1]!.trim();
      input[key] = typedValue(trimOneNewline(parameter[2]!), properties[key]);
    }
    calls.push({ form: 'qwen3-coder', name, arguments: JSON.stringify(input), input });
  }
  return calls;
}

/** What follows `[TOOL_CALLS]` up to the end of the answer. */
export function readMistralCalls(rest: string): TextToolCall[] {
  const trimmed = rest.trim();
  if (trimmed.startsWith('[') && !trimmed.startsWith(MISTRAL_MARKER)) {
    const parsed = repairJsonArguments(trimmed);
    if (!('error' in parsed) && Array.isArray(parsed.value)) return parsed.value.map((entry) => fromObject(entry, 'mistral'));
    return [readJsonCall(trimmed, 'mistral')];
  }
  const calls: TextToolCall[] = [];
  for (const segment of trimmed.split(MISTRAL_MARKER)) {
    const piece = segment.trim();
    if (piece === '') continue;
    const named = /^([A-Za-z0-9_.:-]+)\s*(?:\[CALL_ID\]\s*[A-Za-z0-9_-]+\s*)?(?:\[ARGS\])?\s*([\s\S]*)$/.exec(piece);
    if (piece.startsWith('{') || piece.startsWith('[')) {
      calls.push(...readMistralCalls(piece.startsWith('{') ? `[${piece}]` : piece));
      continue;
    }
    if (!named) {
      calls.push(readJsonCall(piece, 'mistral'));
      continue;
    }
    calls.push(withArguments('mistral', named[1]!, named[2]!));
  }
  return calls;
}

/**
 * A whole answer that is one JSON object naming an offered tool (or an array of them). Anything else
 * is an answer, not a call: a model asked for JSON must not run a tool by accident.
 */
export function readBareJson(text: string, tools: readonly ToolDefinition[]): TextToolCall[] | undefined {
  const fenced = /^```(?:json)?\s*\n?([\s\S]*?)\n?```$/.exec(text.trim());
  const json = (fenced ? fenced[1]! : text).trim();
  if (!json.startsWith('{') && !json.startsWith('[')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    void error; // Not JSON: an answer that happens to start with a brace.
    return undefined;
  }
  const entries = Array.isArray(value) ? value : [value];
  const offered = new Set(tools.map((tool) => tool.name));
  const looksLikeCall = (entry: unknown): boolean => {
    const record = asRecord(entry);
    const args = record.arguments ?? record.parameters;
    return typeof record.name === 'string' && offered.has(record.name) && (args === undefined || (typeof args === 'object' && args !== null));
  };
  if (entries.length === 0 || !entries.every(looksLikeCall)) return undefined;
  return entries.map((entry) => fromObject(entry, 'bare-json'));
}

/** A `{"name": …, "arguments": …}` object as text (Hermes/Qwen and Mistral arrays). */
function readJsonCall(body: string, form: TextToolCallForm): TextToolCall {
  const parsed = repairJsonArguments(body);
  if ('error' in parsed) return { form, name: '', arguments: body.trim(), inputError: `The tool call is not JSON: ${parsed.error}` };
  return fromObject(parsed.value, form);
}

function fromObject(value: unknown, form: TextToolCallForm): TextToolCall {
  const record = asRecord(value);
  const name = typeof record.name === 'string' ? record.name.trim() : '';
  if (name === '') return { form, name: '', arguments: safeJson(value), inputError: 'The tool call had no tool name.' };
  const args = record.arguments ?? record.parameters;
  if (typeof args === 'string') return withArguments(form, name, args);
  if (args === undefined) return { form, name, arguments: '{}', input: {} };
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    return { form, name, arguments: safeJson(args), inputError: 'The arguments must be a JSON object.' };
  }
  return { form, name, arguments: JSON.stringify(args), input: args as Record<string, unknown> };
}

function withArguments(form: TextToolCallForm, name: string, text: string): TextToolCall {
  const parsed = repairJsonArguments(text);
  if ('error' in parsed) return { form, name, arguments: text.trim(), inputError: parsed.error };
  if (typeof parsed.value !== 'object' || parsed.value === null || Array.isArray(parsed.value)) {
    return { form, name, arguments: text.trim(), inputError: 'The arguments must be a JSON object.' };
  }
  return { form, name, arguments: JSON.stringify(parsed.value), input: parsed.value as Record<string, unknown> };
}

function schemaProperties(tool: ToolDefinition | undefined): Record<string, Record<string, unknown>> {
  const properties = asRecord(tool?.parameters.properties);
  return Object.fromEntries(Object.entries(properties).map(([key, spec]) => [key, asRecord(spec)]));
}

/** Qwen3-Coder writes every value as text; numbers, booleans, arrays and objects are JSON when the schema says so. */
function typedValue(raw: string, spec: Record<string, unknown> | undefined): unknown {
  const type = spec?.type;
  const types = Array.isArray(type) ? type : [type];
  if (types.includes('string') || type === undefined) return raw;
  try {
    return JSON.parse(raw);
  } catch (error) {
    void error; // Not JSON: the model wrote the value as text; the schema check will say so.
    return raw;
  }
}

function trimOneNewline(value: string): string {
  return value.replace(/^\r?\n/, '').replace(/\r?\n$/, '');
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch (error) {
    return error instanceof Error ? `(unserialisable: ${error.message})` : '';
  }
}
