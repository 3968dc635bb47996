/**
 * Attachments on Discord (issue 23): an attachment's `url` is a signed CDN link (it is its own
 * credential: no bot token is sent), fetched only from Discord's own hosts — the API's host and
 * its CDN (`cdn.discordapp.com`, `media.discordapp.net`) — and read up to the size cap.
 * https://discord.com/developers/docs/resources/message#attachment-object
 */
import type { InboundFile } from '../../commands/context/conversation-context.js';
import { downloadFromPlatform } from '../shared/download-file.js';

export const DISCORD_CDN_HOSTS = ['cdn.discordapp.com', 'media.discordapp.net'] as const;

export function createDiscordFiles(options: { apiUrl: string; fetch?: typeof fetch }) {
  return async function downloadFile(file: InboundFile, limits: { maxBytes: number; signal?: AbortSignal }): Promise<Uint8Array> {
    const { bytes } = await downloadFromPlatform({
      url: file.source,
      apiUrl: options.apiUrl,
      extraHosts: DISCORD_CDN_HOSTS,
      maxBytes: limits.maxBytes,
      ...(limits.signal ? { signal: limits.signal } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    return bytes;
  };
}
