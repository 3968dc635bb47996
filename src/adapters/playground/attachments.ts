/**
 * Files the page attaches to a message (the composer's paperclip): posted base64 in the message's
 * JSON, checked here (count, size, strict base64, a plain media type), kept in the playground's own
 * file store, and handed to the command layer as `InboundFile`s whose `source` is the file id —
 * the surface's `downloadFile` reads the bytes back from the store, never from a URL.
 */
import type { InboundFile } from '../../commands/context/conversation-context.js';
import { INBOX_MAX_FILES, INBOX_MAX_IMAGE_BYTES } from '../../commands/context/inbound-files.js';
import type { PlaygroundState } from './state.js';

/** Files per message (the command layer reads no more). */
export const PLAYGROUND_MAX_ATTACHMENTS = INBOX_MAX_FILES;
/** Largest file the page may attach (the largest the command layer reads). */
export const PLAYGROUND_MAX_ATTACHMENT_BYTES = INBOX_MAX_IMAGE_BYTES;
/** Body cap of a message post: room for the attachments in base64, and no more. */
export const PLAYGROUND_MAX_MESSAGE_BODY_BYTES = 8 * 1024 * 1024;
const MAX_NAME_LENGTH = 255;
const MEDIA_TYPE = /^[\w.+-]{1,60}\/[\w.+-]{1,60}$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export interface AttachmentInput {
  name: string;
  mediaType: string;
  bytes: Uint8Array;
}

/** The attachments of a post's body (`files: [{ name, type?, data }]`), or why they are refused. */
export function parseAttachments(value: unknown): { ok: true; files: AttachmentInput[] } | { ok: false; status: number; error: string } {
  if (value === undefined) return { ok: true, files: [] };
  if (!Array.isArray(value)) return { ok: false, status: 400, error: 'files must be a list of { name, type, data }' };
  if (value.length > PLAYGROUND_MAX_ATTACHMENTS) return { ok: false, status: 413, error: `at most ${PLAYGROUND_MAX_ATTACHMENTS} files per message` };
  const files: AttachmentInput[] = [];
  for (const entry of value as unknown[]) {
    const file = (typeof entry === 'object' && entry !== null ? entry : {}) as { name?: unknown; type?: unknown; data?: unknown };
    const name = typeof file.name === 'string' ? file.name.replace(/[\u0000-\u001f\u007f]/g, '').trim() : '';
    if (!name || name.length > MAX_NAME_LENGTH || typeof file.data !== 'string' || !BASE64.test(file.data) || file.data.length % 4 !== 0)
      return { ok: false, status: 400, error: 'each file needs a name (at most 255 characters) and its bytes as base64 in data' };
    if (file.type !== undefined && typeof file.type !== 'string') return { ok: false, status: 400, error: 'a file type is a string' };
    const bytes = Buffer.from(file.data, 'base64');
    if (bytes.length > PLAYGROUND_MAX_ATTACHMENT_BYTES)
      return { ok: false, status: 413, error: `${name} is larger than ${PLAYGROUND_MAX_ATTACHMENT_BYTES} bytes` };
    const type = typeof file.type === 'string' ? file.type.toLowerCase() : '';
    files.push({ name, mediaType: MEDIA_TYPE.test(type) ? type : 'application/octet-stream', bytes: new Uint8Array(bytes) });
  }
  return { ok: true, files };
}

/** Keeps each file in the chat (beside the message it comes with) and describes it for the command layer. */
export function storeAttachments(
  state: PlaygroundState,
  where: { channel: string; thread?: string },
  files: readonly AttachmentInput[],
): { ids: string[]; inbound: InboundFile[] } {
  const ids: string[] = [];
  const inbound: InboundFile[] = [];
  for (const file of files) {
    const stored = state.addFile({ ...where, fileName: file.name, title: file.name, bytes: file.bytes, mediaType: file.mediaType });
    ids.push(stored.id);
    inbound.push({ name: file.name, mediaType: file.mediaType, size: file.bytes.length, source: stored.id });
  }
  return { ids, inbound };
}
