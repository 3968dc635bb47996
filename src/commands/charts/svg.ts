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
