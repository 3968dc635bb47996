/**
 * Attachments on Slack (issue 23): a file on a message carries `url_private_download`, fetched
 * with `Authorization: Bearer <bot token>` (scope files:read) from Slack's own hosts only. Without
 * the scope or the header Slack answers a sign-in page (HTML, 200), not an error: that is
 * recognised and said. A file shared without its URLs (`file_access: check_file_info`) is looked
 * up with `files.info` first.
 * https://docs.slack.dev/messaging/working-with-files · https://docs.slack.dev/reference/methods/files.info
 */
import type { WebClient } from '@slack/web-api';
import type { InboundFile } from '../../commands/context/conversation-context.js';
import { AttachmentDownloadError, downloadFromPlatform } from '../shared/download-file.js';
import type { SlackCaller } from './call-budget.js';

/** `source` of a file known only by its id (files.info gives its URL). */
const FILE_ID_PREFIX = 'slack-file:';

/** A file object as Slack puts it on a message event. */
export interface SlackFileObject {
  id?: string;
  name?: string;
  title?: string;
  mimetype?: string;
  size?: number;
  url_private?: string;
  url_private_download?: string;
}

/** The platform-free form of a Slack file; undefined for a file without name or way to fetch it. */
export function inboundFileOf(file: SlackFileObject): InboundFile | undefined {
  const url = file.url_private_download ?? file.url_private;
  const source = url ?? (file.id ? `${FILE_ID_PREFIX}${file.id}` : undefined);
  if (!source) return undefined;
  return {
    name: file.name ?? file.title ?? file.id ?? 'file',
    ...(file.mimetype ? { mediaType: file.mimetype } : {}),
    ...(typeof file.size === 'number' ? { size: file.size } : {}),
    source,
  };
}

export function createSlackFiles(options: { client: WebClient; caller: SlackCaller; botToken: string; apiUrl: string; fetch?: typeof fetch }) {
  const { client, caller } = options;
  return async function downloadFile(file: InboundFile, limits: { maxBytes: number; signal?: AbortSignal }): Promise<Uint8Array> {
    let url = file.source;
    if (url.startsWith(FILE_ID_PREFIX)) {
      const id = url.slice(FILE_ID_PREFIX.length);
      const info = (await caller({ method: 'files.info', priority: 'first', call: () => client.files.info({ file: id }) })) as { file?: SlackFileObject };
      url = info.file?.url_private_download ?? info.file?.url_private ?? '';
      if (!url) throw new AttachmentDownloadError(`Slack gave no download address for ${file.name}`);
    }
    const { bytes, contentType } = await downloadFromPlatform({
      url,
      apiUrl: options.apiUrl,
      headers: { authorization: `Bearer ${options.botToken}` },
      maxBytes: limits.maxBytes,
      ...(limits.signal ? { signal: limits.signal } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    if (/^text\/html/i.test(contentType) && !/html?$/i.test(file.name) && !/html/i.test(file.mediaType ?? '')) {
      throw new AttachmentDownloadError('Slack answered with a sign-in page instead of the file: grant the files:read scope and reinstall the app');
    }
    return bytes;
  };
}
