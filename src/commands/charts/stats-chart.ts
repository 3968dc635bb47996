/**
 * The closing stats of /call, /team and /goal as a picture (issue 16): per agent, output tokens
 * and time as bars, and the peak context against the model's window. The same numbers are given
 * as text for screen readers (`statsChartText`), and as the table in the closing message.
 */
import { formatDuration, type GoalStatsRow } from '../../core/workflows/goal/goal-stats.js';
import { CHART_FONT, clip, count, escapeXml } from './svg.js';

export const STATS_CHART_WIDTH = 640;
const LABEL_WIDTH = 130;
const BAR_HEIGHT = 14;
const LINE_GAP = 4;
const BLOCK_GAP = 14;
const TOP = 44;
const BAR_AREA = STATS_CHART_WIDTH - LABEL_WIDTH - 130;

const COLOURS = { tokens: '#4a3aff', time: '#13795b', context: '#c2410c', window: '#eceaf5' } as const;

export interface StatsChartOptions {
  title: string;
  /** The model's context window, when known: peak context is drawn against it. */
  contextWindow?: number;
}

function bar(x: number, y: number, width: number, colour: string): string {
  return `<rect x="${x}" y="${y}" width="${Math.max(1, Math.round(width))}" height="${BAR_HEIGHT}" rx="2" fill="${colour}"/>`;
}

function label(x: number, y: number, text: string, options: { anchor?: 'start' | 'end'; size?: number; weight?: string; colour?: string } = {}): string {
  return `<text x="${x}" y="${y}" font-size="${options.size ?? 11}" text-anchor="${options.anchor ?? 'start'}"${options.weight ? ` font-weight="${options.weight}"` : ''} fill="${options.colour ?? '#1d1c1d'}">${escapeXml(text)}</text>`;
}

/** An SVG bar chart: one block per agent (output tokens, time, peak context). */
export function statsChartSvg(rows: readonly GoalStatsRow[], options: StatsChartOptions): string {
  const maxTokens = Math.max(1, ...rows.map((row) => row.outputTokens));
  const maxTime = Math.max(1, ...rows.map((row) => row.durationMs));
  const contextScale = Math.max(1, options.contextWindow ?? 0, ...rows.map((row) => row.peakContextTokens));
  const blockHeight = 3 * BAR_HEIGHT + 2 * LINE_GAP;
  const height = TOP + rows.length * (blockHeight + BLOCK_GAP) + 24;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${STATS_CHART_WIDTH}" height="${height}" viewBox="0 0 ${STATS_CHART_WIDTH} ${height}" font-family="${CHART_FONT}">`,
    `<title>${escapeXml(options.title)}</title>`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    label(12, 22, clip(options.title, 80), { size: 14, weight: 'bold' }),
    bar(LABEL_WIDTH, 30, 10, COLOURS.tokens),
    label(LABEL_WIDTH + 14, 40, 'output tokens', { size: 10 }),
    bar(LABEL_WIDTH + 100, 30, 10, COLOURS.time),
    label(LABEL_WIDTH + 114, 40, 'time', { size: 10 }),
    bar(LABEL_WIDTH + 160, 30, 10, COLOURS.context),
    label(LABEL_WIDTH + 174, 40, options.contextWindow ? `peak context of ${count(options.contextWindow)}` : 'peak context', { size: 10 }),
  ];
  rows.forEach((row, index) => {
    const y = TOP + 8 + index * (blockHeight + BLOCK_GAP);
    parts.push(label(12, y + BAR_HEIGHT + LINE_GAP + 11, clip(row.agent, 18), { size: 12, weight: 'bold' }));
    const lines: [number, string, string][] = [
      [(row.outputTokens / maxTokens) * BAR_AREA, COLOURS.tokens, `${count(row.outputTokens)} tok`],
      [(row.durationMs / maxTime) * BAR_AREA, COLOURS.time, formatDuration(row.durationMs)],
      [
        (row.peakContextTokens / contextScale) * BAR_AREA,
        COLOURS.context,
        options.contextWindow
          ? `${count(row.peakContextTokens)} (${Math.round((row.peakContextTokens / options.contextWindow) * 100)}%)`
          : count(row.peakContextTokens),
      ],
    ];
    lines.forEach(([width, colour, value], line) => {
      const top = y + line * (BAR_HEIGHT + LINE_GAP);
      if (line === 2 && options.contextWindow)
        parts.push(`<rect x="${LABEL_WIDTH}" y="${top}" width="${BAR_AREA}" height="${BAR_HEIGHT}" rx="2" fill="${COLOURS.window}"/>`);
      parts.push(bar(LABEL_WIDTH, top, width, colour));
      parts.push(label(LABEL_WIDTH + BAR_AREA + 8, top + 11, value, { size: 11, colour: '#444' }));
    });
  });
  parts.push('</svg>');
  return parts.join('');
}

/** The chart's numbers as sentences, for screen readers and alt text. */
export function statsChartText(rows: readonly GoalStatsRow[], options: StatsChartOptions): string {
  const perAgent = rows.map((row) => {
    const context = options.contextWindow
      ? `peak context ${count(row.peakContextTokens)} of ${count(options.contextWindow)} tokens (${Math.round((row.peakContextTokens / options.contextWindow) * 100)}%)`
      : `peak context ${count(row.peakContextTokens)} tokens`;
    return `${row.agent}: ${count(row.outputTokens)} output tokens, ${formatDuration(row.durationMs)}, ${context}`;
  });
  return `${options.title}. ${perAgent.join('; ')}.`;
}
