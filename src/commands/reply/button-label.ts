/**
 * Button labels are plain text on every platform (Slack's `plain_text`, Discord's label, the
 * playground's button): Markdown in them shows as literal characters ("Approve `npm test` for this
 * run" with its backticks). A command named in a label is set in quotes instead — “npm test” — and
 * when a platform's limit cuts the label (Slack 75, Discord 80 characters) the quoted part is
 * shortened, never the words around it, so "Approve “npm run build:production-bundle…” for this
 * run" keeps its meaning.
 */

const ELLIPSIS = '…';
const OPEN = '“';
const CLOSE = '”';

/** A command or tool name as a label quotes it: its own quote marks become plain ones, so the quoted span stays one span. */
const quoted = (text: string): string => `${OPEN}${text.replace(/[“”`]/g, '"')}${CLOSE}`;

/** The label for "approve for this run" on a call whose grant covers `scope`. */
export function approveForRunLabel(scope: string | undefined): string {
  return scope === undefined ? 'Approve for this run' : `Approve ${quoted(scope)} for this run`;
}

/** A label as plain text: a `code` span someone wrote becomes a quoted span, a stray backtick a plain quote. */
export function plainButtonLabel(label: string): string {
  return label.replace(/`([^`]*)`/g, (_match, code: string) => quoted(code)).replace(/`/g, "'");
}

/** The label as plain text (see {@link plainButtonLabel}) in `max` characters, shortening its first quoted span first. */
export function fitButtonLabel(label: string, max: number): string {
  const plain = plainButtonLabel(label);
  if (plain.length <= max) return plain;
  const open = plain.indexOf(OPEN);
  const close = open === -1 ? -1 : plain.indexOf(CLOSE, open + 1);
  if (close !== -1) {
    const before = plain.slice(0, open + 1);
    const after = plain.slice(close);
    const room = max - before.length - after.length - ELLIPSIS.length;
    if (room >= 4) return `${before}${plain.slice(open + 1, open + 1 + room)}${ELLIPSIS}${after}`;
  }
  return `${plain.slice(0, max - ELLIPSIS.length)}${ELLIPSIS}`;
}
