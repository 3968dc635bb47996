/**
 * Button labels that say what they do even when a platform's limit cuts them (Slack 75,
 * Discord 80 characters): the `code` part is shortened, never the words around it, so
 * "Approve `npm run build:production-bundle…` for this run" keeps its meaning.
 */

const ELLIPSIS = '…';

/** The label for "approve for this run" on a call whose grant covers `scope`. */
export function approveForRunLabel(scope: string | undefined): string {
  return scope === undefined ? 'Approve for this run' : `Approve \`${scope.replace(/`/g, "'")}\` for this run`;
}

/** Fits `label` into `max` characters, shortening its first `code` span first. */
export function fitButtonLabel(label: string, max: number): string {
  if (label.length <= max) return label;
  const open = label.indexOf('`');
  const close = open === -1 ? -1 : label.indexOf('`', open + 1);
  if (close !== -1) {
    const before = label.slice(0, open + 1);
    const after = label.slice(close);
    const room = max - before.length - after.length - ELLIPSIS.length;
    if (room >= 4) return `${before}${label.slice(open + 1, open + 1 + room)}${ELLIPSIS}${after}`;
  }
  return `${label.slice(0, max - ELLIPSIS.length)}${ELLIPSIS}`;
}
