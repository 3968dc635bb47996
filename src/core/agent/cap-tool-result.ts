import type { ToolSchema } from '../tools/tool.js';

/** Share of the kept text that comes from the head; the rest is the tail (errors often sit at the end). */
const HEAD_SHARE = 0.6;

export interface CapToolResultOptions {
  toolName: string;
  /** The tool's schema, to name its paging parameters in the hint when it has them. */
  schema?: ToolSchema;
  maxTokens: number;
  charsPerToken: number;
}

/** A tool's output as it enters the context. */
export interface CappedToolResult {
  text: string;
  capped: boolean;
}

/** How to get the part that was cut: the tool's own paging parameters, else a narrower query. */
export function pagingHint(toolName: string, schema?: ToolSchema): string {
  const properties = schema?.parameters['properties'];
  const names = properties !== null && typeof properties === 'object' ? Object.keys(properties) : [];
  if (toolName === 'read_file' || (names.includes('offset') && names.includes('limit'))) {
    return `use ${toolName} with offset/limit to page`;
  }
  return 'narrow the query';
}

/** Cuts the head back to the nearest line boundary when one is near, so that lines stay whole. */
function headPart(text: string, length: number): string {
  const part = text.slice(0, length);
  const lastNewline = part.lastIndexOf('\n');
  return lastNewline > length / 2 ? part.slice(0, lastNewline + 1) : part;
}

function tailPart(text: string, length: number): string {
  const part = text.slice(text.length - length);
  const firstNewline = part.indexOf('\n');
  return firstNewline !== -1 && firstNewline < length / 2 ? part.slice(firstNewline + 1) : part;
}

const countLines = (text: string): number => (text === '' ? 0 : text.split('\n').length);

/**
 * Keeps a tool result within `maxTokens` (estimated): head and tail survive, the middle is
 * replaced by a note saying how much was cut and how to page to it.
 */
export function capToolResult(output: string, options: CapToolResultOptions): CappedToolResult {
  const { maxTokens, charsPerToken, toolName, schema } = options;
  const maxChars = Math.floor(maxTokens * charsPerToken);
  if (output.length <= maxChars) return { text: output, capped: false };

  const hint = pagingHint(toolName, schema);
  const noteReserve = 120;
  const keptChars = Math.max(0, maxChars - noteReserve);
  const head = headPart(output, Math.floor(keptChars * HEAD_SHARE));
  const tail = tailPart(output, keptChars - head.length);
  const middle = output.slice(head.length, output.length - tail.length);
  const cutTokens = Math.ceil(middle.length / charsPerToken);
  const note = `[… ${countLines(middle)} lines / ~${cutTokens} tokens cut … ${hint}]`;
  const separatorBefore = head === '' || head.endsWith('\n') ? '' : '\n';
  const separatorAfter = tail === '' || tail.startsWith('\n') ? '' : '\n';
  return { text: `${head}${separatorBefore}${note}${separatorAfter}${tail}`, capped: true };
}
