/**
 * A tool source adds tools to the catalogue at run time (MCP servers; created tools may follow):
 * a live registry for the names it owns, which roles may use them, and a summary for `/tsuka tools`
 * and `doctor`. The agent loop still sees one registry (`tool-catalogue.ts`).
 */
import type { ToolRegistry } from './tool.js';

/** One group of a source's tools, e.g. one MCP server. */
export interface ToolSourceGroup {
  /** `MCP server github`. */
  label: string;
  /** `ready`, or why the group has no tools now. */
  state: 'ready' | 'starting' | 'failed';
  tools: string[];
  error?: string;
}

export interface ToolSource {
  /** `mcp`. */
  readonly id: string;
  /** True for every name this source answers for, offered or withdrawn (calls are routed by it). */
  owns(name: string): boolean;
  readonly registry: ToolRegistry;
  /** The source's tools a character in `role` may use now. */
  toolsForRole(role: string): string[];
  groups(): ToolSourceGroup[];
  /** Called whenever the source's tools change; returns an unsubscribe. */
  onChange(listener: () => void): () => void;
}
