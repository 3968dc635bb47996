/**
 * Files in (issue 23): the files attached to a message are downloaded through the surface (the
 * bot's credentials, the platform's own hosts), capped by size, saved into the conversation's
 * workspace under `.tsuka/inbox/` (race-free writes beneath the jail, sanitised names), and put in
 * the turn's prompt: small text files whole, larger ones by their path; images as image parts
 * when the model sees images, otherwise named with a note that the model cannot see them.
 */
import type { Logger } from '../core/logger.js';
import type { ImagePart } from '../core/model/language-model.js';
import type { Workspace } from '../core/tools/tool.js';
import { writeFileBeneath } from '../core/tools/atomic-write.js';
import { statBeneath } from '../core/tools/workspace-files.js';
import { formatBytes } from '../core/tools/format-bytes.js';
import type { ChatSurface } from './chat-surface.js';
import type { InboundFile } from './conversation-context.js';
import { attachmentKind, imageMediaType, inboxPath } from './inbox-names.js';

/** Files read per message; more are named and left. */
export const INBOX_MAX_FILES = 10;
/** Largest text-like (or PDF) file downloaded. */
export const INBOX_MAX_TEXT_BYTES = 1_000_000;
/** Largest image downloaded. */
export const INBOX_MAX_IMAGE_BYTES = 5_000_000;
/** A text file up to this many characters goes into the prompt whole; a longer one shows its head. */
export const INBOX_INLINE_MAX_CHARS = 8_000;
const HEAD_CHARS = 1_500;

export interface PreparedFiles {
  /** The block to put before the user's message ('' when no file came). */
  prompt: string;
  /** Images for a model that sees them. */
  images: ImagePart[];
  /** Images the current model cannot see (the thread is told). */
  unseenImages: string[];
}

export interface PrepareFilesOptions {
  files: readonly InboundFile[];
  surface: ChatSurface;
  workspace: Workspace;
  /** Asked once, and only when an image came. */
  seesImages(): Promise<boolean>;
  maskSecrets(text: string): string;
  logger: Logger;
  now?: () => Date;
  signal?: AbortSignal;
}

export async function prepareFiles(options: PrepareFilesOptions): Promise<PreparedFiles> {
  const prepared: PreparedFiles = { prompt: '', images: [], unseenImages: [] };
  if (options.files.length === 0) return prepared;
  const lines: string[] = [];
  let sees: Promise<boolean> | undefined;
  for (const [index, file] of options.files.entries()) {
    if (index >= INBOX_MAX_FILES) {
      lines.push(`- ${file.name}: not read (at most ${INBOX_MAX_FILES} files per message).`);
      continue;
    }
    const kind = attachmentKind(file.name, file.mediaType);
    if (kind === 'other') {
      lines.push(`- ${file.name}: not read (${file.mediaType ?? 'unknown type'}: only text, PDF and images are read).`);
      continue;
    }
    const cap = kind === 'image' ? INBOX_MAX_IMAGE_BYTES : INBOX_MAX_TEXT_BYTES;
    if (file.size !== undefined && file.size > cap) {
      lines.push(`- ${file.name}: not downloaded (${formatBytes(file.size)}, over the ${formatBytes(cap)} limit).`);
      continue;
    }
    const saved = await downloadAndSave(file, cap, options).catch((error: unknown) => {
      options.logger.warn('an attached file could not be read', { file: file.name, error });
      lines.push(`- ${file.name}: could not be read (${error instanceof Error ? error.message : String(error)}).`);
      return undefined;
    });
    if (!saved) continue;
    const where = `${saved.path} (${formatBytes(saved.bytes.length)})`;
    if (kind === 'image') {
      sees ??= options.seesImages().catch(() => false);
      if (await sees) {
        prepared.images.push({ mediaType: imageMediaType(file.name, file.mediaType), data: Buffer.from(saved.bytes).toString('base64') });
        lines.push(`- ${where}: an image, attached below.`);
      } else {
        prepared.unseenImages.push(file.name);
        lines.push(`- ${where}: an image; the current model cannot see images.`);
      }
    } else if (kind === 'pdf') {
      lines.push(`- ${where}: a PDF, saved; its text is not extracted here.`);
    } else {
      lines.push(describeText(where, saved.bytes, options.maskSecrets));
    }
  }
  prepared.prompt = `Files attached to this message, saved in the workspace:\n${lines.join('\n')}`;
  return prepared;
}

async function downloadAndSave(file: InboundFile, cap: number, options: PrepareFilesOptions): Promise<{ path: string; bytes: Uint8Array } | undefined> {
  if (!options.surface.downloadFile) throw new Error('this platform does not give attachments to the bot');
  const bytes = await options.surface.downloadFile(file, { maxBytes: cap, ...(options.signal ? { signal: options.signal } : {}) });
  const { workspace } = options;
  const relative = await inboxPath(file.name, (options.now ?? (() => new Date()))(), async (candidate) =>
    Boolean(await statBeneath(workspace, await workspace.resolve(candidate), { followLinks: false })),
  );
  // Resolved inside the jail (an escape throws), written through descriptors beneath it.
  await writeFileBeneath(workspace, await workspace.resolve(relative), bytes);
  return { path: relative, bytes };
}

function describeText(where: string, bytes: Uint8Array, mask: (text: string) => string): string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (error) {
    void error; // not UTF-8: kept as a file, not shown
    return `- ${where}: not UTF-8 text; saved, not shown.`;
  }
  if (text.includes('\u0000')) return `- ${where}: binary content; saved, not shown.`;
  const shown = mask(text.length <= INBOX_INLINE_MAX_CHARS ? text : text.slice(0, HEAD_CHARS));
  const fence = '`'.repeat(Math.max(3, ...[...shown.matchAll(/`+/g)].map((match) => match[0].length + 1)));
  const rest = text.length <= INBOX_INLINE_MAX_CHARS ? '' : `\n(first ${HEAD_CHARS} of ${text.length} characters; read the rest with read_file)`;
  return `- ${where}:\n${fence}\n${shown}\n${fence}${rest}`;
}
