/** Small helpers shared by the chart builders: escaping and number formats. */

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => XML_ESCAPES[character]!);
}

/** `1,234`. */
export function count(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

/** Text cut to `max` characters with an ellipsis. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** The font stack every chart uses (DejaVu Sans is what the PNG renderer finds on Debian). */
export const CHART_FONT = "'DejaVu Sans', Verdana, system-ui, sans-serif";

/**
 * Font sizes of the charts, in SVG pixels: the pictures are meant to be seen at their own width
 * (the playground shows them unscaled, scrolling when wider than the pane; Slack and Discord get a
 * PNG drawn at twice it), so none is below 12 px — legible at 1× (issue 24: it was 10, and ≈ 7 px
 * once a page shrank the picture).
 */
export const FONT_SIZE = { title: 15, heading: 13, text: 12 } as const;

/** About how wide `text` is in DejaVu Sans at `size` (for laying out labels side by side; errs wide). */
export const textWidth = (text: string, size: number): number => Math.ceil([...text].length * size * 0.62);
