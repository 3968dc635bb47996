import { describe, expect, it } from 'vitest';
import { exportRunJson, exportRunMarkdown } from '../../../src/core/store/run-export.js';
import type { RunEvent, RunRecord } from '../../../src/core/store/run-types.js';

const record: RunRecord = {
  id: 'run-1',
  kind: 'goal',
  title: 'Add a health check',
  startedBy: 'slack:U1',
  where: { platform: 'slack', channelId: 'slack:T1/C1', threadId: 'slack:T1/C1/1.0' },
  status: 'completed',
  createdAt: Date.UTC(2030, 0, 1, 12, 0, 0),
  endedAt: Date.UTC(2030, 0, 1, 12, 5, 0),
  stats: { totalTokens: 1234 },
};

const at = Date.UTC(2030, 0, 1, 12, 1, 0);
const events: RunEvent[] = [
  { seq: 1, at, type: 'message', agent: 'geordi', text: 'Looking at the server.' },
  { seq: 2, at, type: 'tool-call', agent: 'geordi', tool: 'read_file', summary: 'read_file src/<app>.ts' },
  { seq: 3, at, type: 'message', agent: 'worf', text: 'Meanwhile I audit.' },
  { seq: 4, at, type: 'tool-result', agent: 'geordi', tool: 'read_file', outcome: 'success', display: '1.2 KB', output: 'const a = "```";' },
  { seq: 5, at, type: 'approval', tool: 'write_file', outcome: 'approved', decidedBy: 'slack:U1' },
  { seq: 6, at, type: 'status', status: 'completed', note: 'all steps done' },
];

describe('run export', () => {
  it('writes a readable transcript with each tool call and its result folded in <details>', () => {
    const markdown = exportRunMarkdown(record, events);
    expect(markdown).toContain('# goal: Add a health check');
    expect(markdown).toContain('| Status | ✅ completed |');
    expect(markdown).toContain('| totalTokens | 1234 |');
    expect(markdown).toContain('**geordi** · 2030-01-01 12:01:00 UTC\n\nLooking at the server.');
    expect(markdown).toContain('<details><summary>🔧 geordi: read_file src/&lt;app&gt;.ts — success · 1.2 KB</summary>');
    // The output's own backticks cannot close the fence around it.
    expect(markdown).toContain('````\nconst a = "```";\n````');
    expect(markdown.match(/<details>/g)).toHaveLength(1);
    expect(markdown.indexOf('Meanwhile I audit.')).toBeGreaterThan(markdown.indexOf('<details>'));
    expect(markdown).toContain('🔐 write_file: **approved** by slack:U1');
    expect(markdown).toContain('Status: **completed** — all steps done');
  });

  it('shows a tool call whose result never came', () => {
    const markdown = exportRunMarkdown(record, [events[1]!]);
    expect(markdown).toContain('— no result');
  });

  it('exports JSON that reads back to the same record and events', () => {
    const parsed = JSON.parse(exportRunJson(record, events)) as { version: number; run: RunRecord; events: RunEvent[] };
    expect(parsed).toEqual({ version: 1, run: record, events });
  });
});
