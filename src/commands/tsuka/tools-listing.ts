/** `/tsuka tools`: every tool the bot can offer, grouped by where it comes from (built-in, each MCP server…). */
import type { ToolSourceGroup } from '../../core/tools/tool-source.js';

const STATE_MARK: Record<ToolSourceGroup['state'], string> = { ready: '✓', starting: '…', failed: '✗' };

export function formatToolListing(groups: readonly ToolSourceGroup[]): string {
  return groups
    .map((group) => {
      const head = `${STATE_MARK[group.state]} **${group.label}** (${group.tools.length})${group.error ? ` — ${group.error}` : group.state === 'starting' ? ' — starting' : ''}`;
      return group.tools.length > 0 ? `${head}\n${group.tools.map((name) => `\`${name}\``).join(' ')}` : head;
    })
    .join('\n');
}
