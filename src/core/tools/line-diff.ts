/** Lines shown in an approval prompt's change preview before it says "… N more". */
export const DIFF_PREVIEW_MAX_LINES = 20;

/**
 * A unified-diff-like preview for approvals: trims the common head and tail and shows the
 * changed middle as `-`/`+` lines. Not a minimal diff — enough for a person to see the change.
 */
export function diffPreview(before: string, after: string, maxLines = DIFF_PREVIEW_MAX_LINES): string[] {
  const oldLines = before.split('\n');
  const newLines = after.split('\n');
  let head = 0;
  while (head < oldLines.length && head < newLines.length && oldLines[head] === newLines[head]) head += 1;
  let tail = 0;
  while (tail < oldLines.length - head && tail < newLines.length - head && oldLines[oldLines.length - 1 - tail] === newLines[newLines.length - 1 - tail]) {
    tail += 1;
  }
  const removed = oldLines.slice(head, oldLines.length - tail);
  const added = newLines.slice(head, newLines.length - tail);
  if (removed.length === 0 && added.length === 0) return ['(no changes)'];
  const changed = [...removed.map((line) => `- ${line}`), ...added.map((line) => `+ ${line}`)];
  const shown = changed.slice(0, maxLines);
  if (changed.length > maxLines) shown.push(`… ${changed.length - maxLines} more changed lines`);
  return [`@@ line ${head + 1}: -${removed.length} +${added.length} @@`, ...shown];
}

/** Lines of a new file shown before the cut, and after it, when the file is long. */
export const CONTENT_PREVIEW_HEAD_LINES = 14;
export const CONTENT_PREVIEW_TAIL_LINES = 6;

/**
 * What a new file will hold, as `+` lines for an approval: all of it when short, else its head and
 * tail with the number of lines between them.
 */
export function contentPreview(content: string): string[] {
  const lines = content.replace(/\n$/, '').split('\n');
  const plus = (line: string) => `+ ${line}`;
  if (lines.length <= CONTENT_PREVIEW_HEAD_LINES + CONTENT_PREVIEW_TAIL_LINES) return lines.map(plus);
  const hidden = lines.length - CONTENT_PREVIEW_HEAD_LINES - CONTENT_PREVIEW_TAIL_LINES;
  return [...lines.slice(0, CONTENT_PREVIEW_HEAD_LINES).map(plus), `… ${hidden} more lines …`, ...lines.slice(-CONTENT_PREVIEW_TAIL_LINES).map(plus)];
}
