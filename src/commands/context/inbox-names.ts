/**
 * Names and kinds of files people attach (issue 23). A name comes from whoever uploaded the file:
 * it is reduced to one harmless path segment before anything is written, and the file's kind is
 * read from its media type and extension (what is read as text, what is an image, what is not read).
 */

import { INBOX_FOLDER } from '../../core/tools/inbox-folder.js';

/** Where attachments land, relative to the conversation's workspace. */
export { INBOX_FOLDER };
/** Longest sanitised name kept (the extension survives the cut). */
export const INBOX_MAX_NAME_LENGTH = 80;

export type AttachmentKind = 'text' | 'image' | 'pdf' | 'other';

const TEXT_EXTENSIONS = new Set(
  (
    'txt log md markdown csv tsv json jsonl ndjson yaml yml toml ini cfg conf env xml html htm css scss ' +
    'js mjs cjs ts tsx jsx py rb go rs java kt c h cc cpp hpp cs php sh bash zsh ps1 sql graphql proto ' +
    'diff patch tf hcl gradle properties lua r swift scala dockerfile makefile gitignore'
  ).split(' '),
);
const TEXT_MEDIA_TYPES = /^(text\/|application\/(json|x-ndjson|xml|yaml|x-yaml|toml|javascript|x-sh|x-shellscript|sql|graphql)\b)/i;
/** Images the vision servers accept as data URLs. */
export const IMAGE_MEDIA_TYPES: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp' };

function extensionOf(name: string): string {
  const base = name.toLowerCase();
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1) : base;
}

/** What kind of file this is, from its media type first, then its extension. */
export function attachmentKind(name: string, mediaType?: string): AttachmentKind {
  const type = (mediaType ?? '').toLowerCase().split(';')[0]!.trim();
  const extension = extensionOf(name);
  if (type.startsWith('image/')) return Object.values(IMAGE_MEDIA_TYPES).includes(type) ? 'image' : 'other';
  if (type === 'application/pdf' || extension === 'pdf') return 'pdf';
  if (TEXT_MEDIA_TYPES.test(type) || TEXT_EXTENSIONS.has(extension)) return 'text';
  if (!type && IMAGE_MEDIA_TYPES[extension]) return 'image';
  return 'other';
}

/** The media type of an image, trusted only when it is one of the accepted ones. */
export function imageMediaType(name: string, mediaType?: string): string {
  const type = (mediaType ?? '').toLowerCase().split(';')[0]!.trim();
  if (Object.values(IMAGE_MEDIA_TYPES).includes(type)) return type;
  return IMAGE_MEDIA_TYPES[extensionOf(name)] ?? 'image/png';
}

/**
 * One safe file name: the last segment of any path (`/`, `\`), no control or unusual characters,
 * no leading dots (never `..` nor a hidden file), at most {@link INBOX_MAX_NAME_LENGTH} characters
 * with the extension kept; `file` when nothing is left.
 */
export function sanitiseFileName(name: string): string {
  // Normalised first: a fullwidth solidus (U+FF0F) becomes a `/` and separates like one.
  const segment = name.normalize('NFKC').split(/[/\\]/).pop() ?? '';
  const cleaned = segment
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^[._-]+/, '')
    .replace(/[._-]+$/, '');
  if (cleaned === '') return 'file';
  if (cleaned.length <= INBOX_MAX_NAME_LENGTH) return cleaned;
  const dot = cleaned.lastIndexOf('.');
  const extension = dot > 0 && cleaned.length - dot <= 12 ? cleaned.slice(dot) : '';
  return `${cleaned.slice(0, INBOX_MAX_NAME_LENGTH - extension.length)}${extension}`;
}

/** `<inbox>/<YYYY-MM-DD>-<name>`, with `-2`, `-3`… before the extension when `taken` says the name is used. */
export async function inboxPath(name: string, at: Date, taken: (relative: string) => Promise<boolean>): Promise<string> {
  const safe = sanitiseFileName(name);
  const date = at.toISOString().slice(0, 10);
  const dot = safe.lastIndexOf('.');
  const [stem, extension] = dot > 0 ? [safe.slice(0, dot), safe.slice(dot)] : [safe, ''];
  for (let attempt = 1; ; attempt += 1) {
    const candidate = `${INBOX_FOLDER}/${date}-${stem}${attempt === 1 ? '' : `-${attempt}`}${extension}`;
    if (attempt > 99 || !(await taken(candidate))) return candidate;
  }
}
