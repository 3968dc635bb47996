/**
 * Files in (issue 23): the files attached to a message are downloaded through the surface (the
 * bot's credentials, the platform's own hosts), capped by size, saved into the conversation's
 * workspace under `.tsuka/inbox/` (race-free writes beneath the jail, sanitised names), and put in
 * the turn's prompt: small text files whole, larger ones by their path; images as image parts
 * when the model sees images, otherwise named with a note that the model cannot see them; a PDF's
 * text extracted (in a worker thread, `pdf-text.ts`) into `<name>.txt` beside it and shown like a
 * text file, or — encrypted, broken — named among the files the thread is told could not be read.
 */
import type { Logger } from '../../core/logger.js';
import type { ImagePart } from '../../core/model/language-model.js';
import type { Workspace } from '../../core/tools/tool.js';
import { writeFileBeneath } from '../../core/tools/atomic-write.js';
import { statBeneath } from '../../core/tools/workspace-files.js';
import { formatBytes } from '../../core/tools/format-bytes.js';
import type { ChatSurface } from '../chat-surface.js';
import type { InboundFile } from './conversation-context.js';
import { attachmentKind, imageMediaType, inboxPath } from './inbox-names.js';
import { extractPdfText, type PdfText } from './pdf-text.js';

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
  /** Files saved whose content could not be read (an encrypted PDF): the thread is told why. */
  unreadable: { name: string; path: string; reason: string }[];
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
  /** The first line of the block (default: files attached to this message). */
  heading?: string;
  /** Where a file came from (an earlier message of the thread), said after its path. */
  originOf?(file: InboundFile): string | undefined;
  /** Bytes downloaded at most over all the files (each file keeps its own cap too). */
  maxTotalBytes?: number;
  /** Reads a PDF's text (tests give their own). */
  extractPdf?(bytes: Uint8Array, options: { signal?: AbortSignal }): Promise<PdfText>;
}

export async function prepareFiles(options: PrepareFilesOptions): Promise<PreparedFiles> {
  const prepared: PreparedFiles = { prompt: '', images: [], unseenImages: [], unreadable: [] };
  if (options.files.length === 0) return prepared;
  const lines: string[] = [];
  let sees: Promise<boolean> | undefined;
  let left = options.maxTotalBytes ?? Number.POSITIVE_INFINITY;
  for (const [index, file] of options.files.entries()) {
    const origin = options.originOf?.(file);
    const from = origin ? `, from ${origin}` : '';
    if (index >= INBOX_MAX_FILES) {
      lines.push(`- ${file.name}${from}: not read (at most ${INBOX_MAX_FILES} files per message).`);
      continue;
    }
    const kind = attachmentKind(file.name, file.mediaType);
    if (kind === 'other') {
      lines.push(`- ${file.name}${from}: not read (${file.mediaType ?? 'unknown type'}: only text, PDF and images are read).`);
      continue;
    }
    const cap = Math.min(kind === 'image' ? INBOX_MAX_IMAGE_BYTES : INBOX_MAX_TEXT_BYTES, left);
    if (cap <= 0 || (file.size !== undefined && file.size > cap)) {
      const limit = cap < left ? `the ${formatBytes(cap)} limit` : `the ${formatBytes(options.maxTotalBytes ?? cap)} limit for these files together`;
      lines.push(`- ${file.name}${from}: not downloaded (${file.size === undefined ? 'size unknown' : formatBytes(file.size)}, over ${limit}).`);
      continue;
    }
    const saved = await downloadAndSave(file, cap, options).catch((error: unknown) => {
      options.logger.warn('an attached file could not be read', { file: file.name, error });
      lines.push(`- ${file.name}${from}: could not be read (${error instanceof Error ? error.message : String(error)}).`);
      return undefined;
    });
    if (!saved) continue;
    left -= saved.bytes.length;
    const where = `${saved.path} (${formatBytes(saved.bytes.length)})${from}`;
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
      lines.push(await describePdf(where, file.name, saved, options, prepared));
    } else {
      lines.push(describeText(where, saved.bytes, options.maskSecrets));
    }
  }
  prepared.prompt = `${options.heading ?? 'Files attached to this message, saved in the workspace:'}\n${lines.join('\n')}`;
  return prepared;
}

async function downloadAndSave(file: InboundFile, cap: number, options: PrepareFilesOptions): Promise<{ path: string; bytes: Uint8Array } | undefined> {
  if (!options.surface.downloadFile) throw new Error('this platform does not give attachments to the bot');
  const bytes = await options.surface.downloadFile(file, { maxBytes: cap, ...(options.signal ? { signal: options.signal } : {}) });
  const relative = await inboxPath(file.name, (options.now ?? (() => new Date()))(), (candidate) => taken(options.workspace, candidate));
  // Resolved inside the jail (an escape throws), written through descriptors beneath it.
  await writeFileBeneath(options.workspace, await options.workspace.resolve(relative), bytes);
  return { path: relative, bytes };
}

async function taken(workspace: Workspace, relative: string): Promise<boolean> {
  return Boolean(await statBeneath(workspace, await workspace.resolve(relative), { followLinks: false }));
}

/** A PDF's text goes to `<saved>.txt` beside it and is shown like a text file; a failure is said in the thread. */
async function describePdf(
  where: string,
  name: string,
  saved: { path: string; bytes: Uint8Array },
  options: PrepareFilesOptions,
  prepared: PreparedFiles,
): Promise<string> {
  let pdf: PdfText;
  try {
    pdf = await (options.extractPdf ?? extractPdfText)(saved.bytes, options.signal ? { signal: options.signal } : {});
  } catch (error) {
    options.logger.warn('the text of an attached PDF could not be read', { file: name, error });
    const reason = error instanceof Error ? error.message : String(error);
    // A stopped turn is not a file that could not be read: the thread is not told.
    if (!options.signal?.aborted) prepared.unreadable.push({ name, path: saved.path, reason });
    return `- ${where}: a PDF whose text could not be read (${reason}); the file is saved.`;
  }
  const pages = `a PDF of ${pdf.totalPages} page${pdf.totalPages === 1 ? '' : 's'}`;
  if (pdf.empty) return `- ${where}: ${pages} with no text to extract (scanned pages or pictures only); saved.`;
  let textPath = `${saved.path}.txt`;
  try {
    for (let attempt = 2; (await taken(options.workspace, textPath)) && attempt < 100; attempt += 1) textPath = `${saved.path}-${attempt}.txt`;
    await writeFileBeneath(options.workspace, await options.workspace.resolve(textPath), pdf.text);
  } catch (error) {
    // The text still reaches the model; only its copy in the workspace is missing.
    options.logger.warn('the text of an attached PDF could not be saved', { file: name, error });
    return showText(
      `${where}: ${pages}; its text (not saved in the workspace: ${error instanceof Error ? error.message : String(error)})`,
      pdf.text,
      options.maskSecrets,
    );
  }
  const part = pdf.truncated ? ` (the text of its first ${pdf.pages} page${pdf.pages === 1 ? '' : 's'}, within ${pdf.text.length} characters)` : '';
  return showText(`${where}: ${pages}; its text${part} is saved in ${textPath}`, pdf.text, options.maskSecrets, textPath);
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
  return showText(where, text, mask);
}

/** A text whole when small, else its head and where to read the rest; masked, in a fence it cannot close. */
function showText(where: string, text: string, mask: (text: string) => string, readFrom?: string): string {
  const shown = mask(text.length <= INBOX_INLINE_MAX_CHARS ? text : text.slice(0, HEAD_CHARS));
  const fence = '`'.repeat(Math.max(3, ...[...shown.matchAll(/`+/g)].map((match) => match[0].length + 1)));
  const rest =
    text.length <= INBOX_INLINE_MAX_CHARS
      ? ''
      : `\n(first ${HEAD_CHARS} of ${text.length} characters; read the rest with read_file${readFrom ? ` in ${readFrom}` : ''})`;
  return `- ${where}:\n${fence}\n${shown}\n${fence}${rest}`;
}
