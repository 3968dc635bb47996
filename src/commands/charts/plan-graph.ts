/**
 * The /goal plan as a small dependency graph (issue 16): steps left to right in the order they
 * run, the steps of a PARALLEL block stacked in one column, arrows from each column to the next.
 */
import type { PlanGroup } from '../../core/workflows/goal/plan-parser.js';
import { CHART_FONT, clip, escapeXml, FONT_SIZE, textWidth } from './svg.js';

const BOX_WIDTH = 176;
const BOX_HEIGHT = 50;
const COLUMN_GAP = 40;
const ROW_GAP = 12;
const MARGIN = 16;
const TOP = 44;

interface Column {
  parallel: boolean;
  steps: PlanGroup['steps'];
}

/** Sequential groups become one column per step; a parallel group is one column. */
function columnsOf(groups: readonly PlanGroup[]): Column[] {
  return groups.flatMap((group): Column[] =>
    group.parallel ? [{ parallel: true, steps: group.steps }] : group.steps.map((step) => ({ parallel: false, steps: [step] })),
  );
}

export function planGraphSvg(groups: readonly PlanGroup[], title: string): string {
  const columns = columnsOf(groups).filter((column) => column.steps.length > 0);
  const tallest = Math.max(1, ...columns.map((column) => column.steps.length));
  const heading = clip(title, 60);
  const width = Math.max(
    MARGIN * 2 + columns.length * BOX_WIDTH + Math.max(0, columns.length - 1) * COLUMN_GAP,
    MARGIN * 2 + textWidth(heading, FONT_SIZE.title),
  );
  const height = TOP + tallest * BOX_HEIGHT + (tallest - 1) * ROW_GAP + MARGIN + 8;
  const centre = (count: number, index: number) => TOP + ((tallest - count) * (BOX_HEIGHT + ROW_GAP)) / 2 + index * (BOX_HEIGHT + ROW_GAP);
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${Math.max(width, 240)}" height="${height}" viewBox="0 0 ${Math.max(width, 240)} ${height}" font-family="${CHART_FONT}">`,
    `<title>${escapeXml(title)}</title>`,
    `<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#6b6b76"/></marker></defs>`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="${MARGIN}" y="24" font-size="${FONT_SIZE.title}" font-weight="bold" fill="#1d1c1d">${escapeXml(heading)}</text>`,
  ];
  columns.forEach((column, index) => {
    const x = MARGIN + index * (BOX_WIDTH + COLUMN_GAP);
    const next = columns[index + 1];
    column.steps.forEach((step, row) => {
      const y = centre(column.steps.length, row);
      if (next) {
        next.steps.forEach((_, target) => {
          const targetY = centre(next.steps.length, target) + BOX_HEIGHT / 2;
          parts.push(
            `<line x1="${x + BOX_WIDTH}" y1="${y + BOX_HEIGHT / 2}" x2="${x + BOX_WIDTH + COLUMN_GAP - 2}" y2="${targetY}" stroke="#6b6b76" stroke-width="1.4" marker-end="url(#arrow)"/>`,
          );
        });
      }
      const fill = column.parallel ? '#eef6ff' : '#f4f2ff';
      const stroke = column.parallel ? '#2f6fdf' : '#4a3aff';
      parts.push(
        `<rect x="${x}" y="${y}" width="${BOX_WIDTH}" height="${BOX_HEIGHT}" rx="6" fill="${fill}" stroke="${stroke}"${column.parallel ? ' stroke-dasharray="4 2"' : ''}/>`,
      );
      parts.push(
        `<text x="${x + 8}" y="${y + 19}" font-size="${FONT_SIZE.heading}" font-weight="bold" fill="#1d1c1d">${escapeXml(clip(`${step.number}. @${step.agent || '?'}`, 19))}</text>`,
      );
      parts.push(`<text x="${x + 8}" y="${y + 38}" font-size="${FONT_SIZE.text}" fill="#444">${escapeXml(clip(step.task, 21))}</text>`);
    });
    if (column.parallel) parts.push(`<text x="${x}" y="${TOP - 5}" font-size="${FONT_SIZE.text}" fill="#2f6fdf">in parallel</text>`);
  });
  parts.push('</svg>');
  return parts.join('');
}

/** The graph in words: "1 (@geordi) → 2, 3 in parallel (@worf, @data) → 4 (@geordi)". */
export function planGraphText(groups: readonly PlanGroup[]): string {
  const columns = columnsOf(groups).filter((column) => column.steps.length > 0);
  const words = columns.map((column) =>
    column.parallel && column.steps.length > 1
      ? `steps ${column.steps.map((step) => step.number).join(', ')} in parallel (${column.steps.map((step) => `@${step.agent}`).join(', ')})`
      : `step ${column.steps[0]!.number} (@${column.steps[0]!.agent})`,
  );
  return `Plan: ${words.join(' → ')}.`;
}
