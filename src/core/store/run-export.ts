/**
 * Exports of a stored run: a readable Markdown transcript (tool calls folded into `<details>`) and
 * a JSON document with the record and every event.
 */
import type { RunEvent, RunRecord } from './run-types.js';

/** Version of the JSON export layout, bumped when it changes. */
export const RUN_EXPORT_JSON_VERSION = 1;

const STATUS_ICONS: Record<string, string> = {
  running: '⏳',
  completed: '✅',
  failed: '✖',
  interrupted: '⚠️',
  stopped: '⏹',
};

function time(at: number): string {
  return new Date(at)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');
}

/** A fence longer than any backtick run inside `text`, so the output cannot close it early. */
function fenced(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}\n${text}\n${fence}`;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function toolBlock(call: Extract<RunEvent, { type: 'tool-call' }>, result?: Extract<RunEvent, { type: 'tool-result' }>): string {
  const outcome = result ? ` — ${result.outcome}${result.display ? ` · ${result.display}` : ''}` : ' — no result';
  const summary = escapeHtml(`🔧 ${call.agent}: ${call.summary}${outcome}`);
  const input = call.arguments ? `\n\nArguments:\n\n${fenced(call.arguments)}` : '';
  const output = result?.output !== undefined ? `\n\nOutput:\n\n${fenced(result.output)}\n` : '\n\n(no output recorded)\n';
  return `<details><summary>${summary}</summary>${input}${output}\n</details>`;
}

/** The index of the result of the call at `index`: the same call id, else the next result of that tool by that agent. */
function resultIndexOf(events: readonly RunEvent[], index: number, taken: ReadonlySet<number>): number {
  const call = events[index] as Extract<RunEvent, { type: 'tool-call' }>;
  return events.findIndex(
    (candidate, at) =>
      at > index &&
      !taken.has(at) &&
      candidate.type === 'tool-result' &&
      (call.callId !== undefined && candidate.callId !== undefined
        ? candidate.callId === call.callId
        : candidate.tool === call.tool && candidate.agent === call.agent),
  );
}

function eventBlock(event: RunEvent): string | undefined {
  switch (event.type) {
    case 'message':
      return `**${event.agent}** · ${time(event.at)}\n\n${event.text}`;
    case 'approval':
      return `> 🔐 ${event.tool}: **${event.outcome}**${event.decidedBy ? ` by ${event.decidedBy}` : ''} · ${time(event.at)}`;
    case 'status':
      return `> ${STATUS_ICONS[event.status] ?? ''} Status: **${event.status}**${event.note ? ` — ${event.note}` : ''} · ${time(event.at)}`;
    case 'note':
      return `> 📝 ${event.text}`;
    case 'reasoning':
      return `<details><summary>${escapeHtml(`💭 ${event.agent}: reasoning`)}</summary>\n\n${fenced(event.text)}\n\n</details>`;
    case 'error':
      return `> ⚠️ ${event.agent}: ${event.message} · ${time(event.at)}`;
    case 'usage':
      return `> 📊 ${event.agent}: ${event.promptTokens} prompt + ${event.completionTokens} completion tokens in ${event.modelCalls} model call${event.modelCalls === 1 ? '' : 's'}`;
    case 'tool-result':
      // Reached only when its call is missing from the log.
      return `<details><summary>${escapeHtml(`🔧 ${event.agent}: ${event.tool} — ${event.outcome}`)}</summary>\n\n${fenced(event.output ?? '')}\n\n</details>`;
    default:
      return undefined;
  }
}

/** The run as a Markdown transcript: header, then events in order, tool calls folded. */
export function exportRunMarkdown(record: RunRecord, events: readonly RunEvent[]): string {
  const lines: string[] = [
    `# ${record.kind}: ${record.title}`,
    '',
    `| | |`,
    `|---|---|`,
    `| Run | \`${record.id}\` |`,
    `| Status | ${STATUS_ICONS[record.status] ?? ''} ${record.status} |`,
    `| Started by | ${record.startedBy} |`,
    `| Where | ${record.where.platform} · ${record.where.channelId}${record.where.threadId ? ` · ${record.where.threadId}` : ''} |`,
    `| Started | ${time(record.createdAt)} |`,
  ];
  if (record.endedAt !== undefined) lines.push(`| Ended | ${time(record.endedAt)} |`);
  for (const [name, value] of Object.entries(record.stats ?? {})) {
    if (value !== undefined) lines.push(`| ${name} | ${value} |`);
  }
  const blocks: string[] = [];
  const pairedResults = new Set<number>();
  events.forEach((event, index) => {
    if (pairedResults.has(index)) return;
    if (event.type === 'tool-call') {
      const resultIndex = resultIndexOf(events, index, pairedResults);
      const result = resultIndex >= 0 ? (events[resultIndex] as Extract<RunEvent, { type: 'tool-result' }>) : undefined;
      if (resultIndex >= 0) pairedResults.add(resultIndex);
      blocks.push(toolBlock(event, result));
      return;
    }
    const block = eventBlock(event);
    if (block) blocks.push(block);
  });
  return `${lines.join('\n')}\n\n---\n\n${blocks.join('\n\n')}\n`;
}

/** The run as JSON: `{ version, run, events }`, pretty-printed. */
export function exportRunJson(record: RunRecord, events: readonly RunEvent[]): string {
  return `${JSON.stringify({ version: RUN_EXPORT_JSON_VERSION, run: record, events }, null, 2)}\n`;
}

/**
 * What `/tsuka trace` shows the requester: the run's reasoning and tool outputs, in order, each
 * cut to `perItemChars`, the whole cut to `maxChars` with a pointer to the full export.
 */
export function formatRunTrace(record: RunRecord, events: readonly RunEvent[], limits: { perItemChars: number; maxChars: number }): string {
  const cut = (text: string) => (text.length > limits.perItemChars ? `${text.slice(0, limits.perItemChars)}…` : text);
  const items: string[] = [];
  for (const event of events) {
    if (event.type === 'reasoning') items.push(`💭 ${event.agent}:\n${fenced(cut(event.text))}`);
    else if (event.type === 'tool-call') items.push(`🔧 ${event.agent}: ${event.summary}${event.arguments ? ` ${cut(event.arguments)}` : ''}`);
    else if (event.type === 'tool-result' && event.output !== undefined) items.push(`↳ ${event.outcome}:\n${fenced(cut(event.output))}`);
    else if (event.type === 'error') items.push(`⚠️ ${event.agent}: ${event.message}`);
  }
  const header = `Trace of \`${record.id}\` (${record.kind}: ${record.title})`;
  if (items.length === 0) return `${header}: no reasoning or tool calls were recorded.`;
  let text = header;
  for (const [index, item] of items.entries()) {
    if (text.length + item.length + 2 > limits.maxChars) {
      return `${text}\n\n… ${items.length - index} more — the whole run: \`/tsuka export ${record.id}\``;
    }
    text += `\n\n${item}`;
  }
  return text;
}
