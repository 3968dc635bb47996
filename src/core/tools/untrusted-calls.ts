/**
 * Network calls of a turn that has read untrusted text (issue 41, `untrusted-content.ts`): a SAFE
 * call of a tool that declares what it sends becomes RESTRICTED, decided for that call only, and the
 * card says exactly what would leave and to where.
 */
import type { CallPreview, CallRisk, OutgoingCall, ToolContext } from './tool.js';

const MAX_SHOWN = 300;
const quoted = (text: string) => `“${text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text}”`;

/** The card's line saying exactly what the call would send, and to where. */
export function outgoingLine(call: OutgoingCall, mask: (text: string) => string): string {
  const texts = call.texts.filter((text) => text.trim() !== '');
  return `Would send to ${call.destination}: ${texts.length === 0 ? '(nothing but the call itself)' : texts.map((text) => quoted(mask(text).replace(/\s+/g, ' '))).join(', ')}`;
}

/**
 * A network call of a turn that has read untrusted text: at least RESTRICTED, decided for this call
 * only (never covered by an earlier "Approve for this run"); DANGEROUS stays DANGEROUS.
 */
export function untrustedOutgoingRisk(risk: CallRisk, sources: readonly string[]): CallRisk {
  if (risk.level === 'DANGEROUS' || sources.length === 0) return risk;
  const why = `this turn has read untrusted text (${sources.join('; ')}), so what this call sends out could come from there — check what would leave`;
  return { level: 'RESTRICTED', reason: risk.level === 'SAFE' ? why : `${risk.reason}; ${why}`, once: true };
}

/** The sources of untrusted text the call's turn has read (none when the loop does not track them). */
export const untrustedSources = (context: ToolContext): readonly string[] => context.untrusted?.sources() ?? [];

/** The preview with the outgoing line added, when the turn has read untrusted text. */
export function withOutgoingLine(preview: CallPreview, call: OutgoingCall | undefined, context: ToolContext): CallPreview {
  if (!call || untrustedSources(context).length === 0) return preview;
  return { ...preview, details: [...(preview.details ?? []), outgoingLine(call, context.maskSecrets)] };
}

const KNOWN_SOURCES: Record<string, string> = {
  web_search: 'web search results',
  browse_url: 'a web page',
  download_file: 'a downloaded file',
};

/** How the card and the fence name what a network tool brought in. */
export function networkSourceLabel(toolName: string): string {
  const known = KNOWN_SOURCES[toolName];
  if (known) return `${known} (${toolName})`;
  return toolName.startsWith('mcp__') ? `an MCP result (${toolName})` : `the output of ${toolName}`;
}
