/**
 * Turns an MCP `tools/call` result into the text the model reads. Text stays text; an image or
 * audio block becomes a note the model can read (type, size) instead of vanishing; resource links
 * and embedded resources are named by URI (embedded text is included). Structured content is shown
 * as JSON when the server sent no text.
 */
import { formatBytes } from '../format-bytes.js';

/** Hard ceiling before the agent loop's own capping: a server must not fill memory. */
export const MCP_RESULT_MAX_CHARS = 200_000;

export interface McpContentBlock {
  type: string;
  [key: string]: unknown;
}

export interface McpCallResult {
  content?: McpContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
  /** Older servers answer `{ toolResult }`. */
  toolResult?: unknown;
}

export interface ConvertedMcpResult {
  output: string;
  isError: boolean;
  /** `2 text · 1 image` for the chat line. */
  summary: string;
}

export function convertMcpResult(result: McpCallResult): ConvertedMcpResult {
  const parts: string[] = [];
  const counts = new Map<string, number>();
  const count = (kind: string): void => void counts.set(kind, (counts.get(kind) ?? 0) + 1);
  for (const block of result.content ?? []) {
    count(block.type);
    parts.push(describeBlock(block));
  }
  if (parts.length === 0 && result.structuredContent !== undefined) {
    count('structured');
    parts.push(JSON.stringify(result.structuredContent, null, 2));
  }
  if (parts.length === 0 && result.toolResult !== undefined) {
    count('result');
    parts.push(typeof result.toolResult === 'string' ? result.toolResult : JSON.stringify(result.toolResult, null, 2));
  }
  let output = parts.join('\n\n');
  if (output === '') output = result.isError ? 'The tool failed without saying why.' : '(the tool returned no content)';
  if (output.length > MCP_RESULT_MAX_CHARS) {
    output = `${output.slice(0, MCP_RESULT_MAX_CHARS)}\n[… cut: the result had ${output.length} characters]`;
  }
  const summary = [...counts].map(([kind, n]) => `${n} ${kind}`).join(' · ') || 'empty';
  return { output: result.isError ? `Error: ${output}` : output, isError: result.isError === true, summary };
}

function describeBlock(block: McpContentBlock): string {
  switch (block.type) {
    case 'text':
      return typeof block.text === 'string' ? block.text : '';
    case 'image':
    case 'audio': {
      const bytes = typeof block.data === 'string' ? Math.floor((block.data.length * 3) / 4) : 0;
      const mime = typeof block.mimeType === 'string' ? block.mimeType : 'unknown type';
      return `[${block.type} returned by the tool: ${mime}, ${formatBytes(bytes)} — it cannot be shown here; ask for a text description or a file if you need its content]`;
    }
    case 'resource_link': {
      const name = typeof block.name === 'string' ? ` "${block.name}"` : '';
      const description = typeof block.description === 'string' ? ` — ${block.description}` : '';
      return `[resource link${name}: ${String(block.uri)}${typeof block.mimeType === 'string' ? ` (${block.mimeType})` : ''}${description}]`;
    }
    case 'resource': {
      const resource = (block.resource ?? {}) as { uri?: unknown; text?: unknown; blob?: unknown; mimeType?: unknown };
      if (typeof resource.text === 'string') return `[resource ${String(resource.uri)}]\n${resource.text}`;
      const bytes = typeof resource.blob === 'string' ? Math.floor((resource.blob.length * 3) / 4) : 0;
      return `[binary resource ${String(resource.uri)}${typeof resource.mimeType === 'string' ? ` (${resource.mimeType})` : ''}, ${formatBytes(bytes)} — not shown]`;
    }
    default:
      return `[a "${block.type}" block the harness does not display]`;
  }
}
