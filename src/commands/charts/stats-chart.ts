/**
 * The closing stats of /call, /team and /goal as a picture (issue 16): per agent, output tokens
 * and time as bars, and the peak context against the model's window. The same numbers are given
 * as text for screen readers (`statsChartText`), and as the table in the closing message.
 */
import { formatDuration, type GoalStatsRow } from '../../core/workflows/goal/goal-stats.js';
import { CHART_FONT, clip, count, escapeXml, FONT_SIZE, textWidth } from './svg.js';

export const STATS_CHART_WIDTH = 640;
const LABEL_WIDTH = 130;
const BAR_HEIGHT = 14;
const LINE_GAP = 4;
const BLOCK_GAP = 14;
const TOP = 48;
const SWATCH = 10;
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
  return `<text x="${x}" y="${y}" font-size="${options.size ?? FONT_SIZE.text}" text-anchor="${options.anchor ?? 'start'}"${options.weight ? ` font-weight="${options.weight}"` : ''} fill="${options.colour ?? '#1d1c1d'}">${escapeXml(text)}</text>`;
}

/** The colour key above the bars: a swatch and its words, one after the other. */
function legend(entries: readonly [colour: string, text: string][]): string[] {
  let x = LABEL_WIDTH;
  return entries.flatMap(([colour, text]) => {
    const parts = [bar(x, 32, SWATCH, colour), label(x + SWATCH + 4, 43, text)];
    x += SWATCH + 4 + textWidth(text, FONT_SIZE.text) + 14;
    return parts;
  });
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
    label(12, 22, clip(options.title, 62), { size: FONT_SIZE.title, weight: 'bold' }),
    ...legend([
      [COLOURS.tokens, 'output tokens'],
      [COLOURS.time, 'time'],
      [COLOURS.context, options.contextWindow ? `peak context of ${count(options.contextWindow)}` : 'peak context'],
    ]),
  ];
  rows.forEach((row, index) => {
    const y = TOP + 8 + index * (blockHeight + BLOCK_GAP);
    parts.push(label(12, y + BAR_HEIGHT + LINE_GAP + 11, clip(row.agent, 14), { size: FONT_SIZE.heading, weight: 'bold' }));
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
      parts.push(label(LABEL_WIDTH + BAR_AREA + 8, top + 11, value, { colour: '#444' }));
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
