/**
 * Downloads an attachment from a chat platform's own origins (issues 23, 41): every hop's URL must
 * have the API's scheme and port (https and its default port in production; the emulator's
 * `http://127.0.0.1:<port>` in tests) and a host that is the API's host, one of its subdomains
 * (`files.slack.com` for `slack.com`) or one of the platform's extra hosts. Redirects are followed
 * by hand and each hop is checked the same way before anything is sent; a redirect to any other
 * origin is refused (not followed without the header), so the bot's credentials never reach
 * another port or host. The body is read up to `maxBytes` and no further.
 */
import { TsukaError } from '../../core/errors.js';

export const MAX_DOWNLOAD_REDIRECTS = 3;
const DOWNLOAD_TIMEOUT_MS = 30_000;

/** A file the platform would not give, or that was not allowed. */
export class AttachmentDownloadError extends TsukaError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('attachment_download', message, options);
  }
}

export interface PlatformDownload {
  url: string;
  /** The platform's API base URL: its host (and subdomains) are the only ones allowed. */
  apiUrl: string;
  /** Extra hosts of the platform itself (Discord's CDN). */
  extraHosts?: readonly string[];
  headers?: Record<string, string>;
  maxBytes: number;
  signal?: AbortSignal;
  fetch?: typeof fetch;
}

/** True when `url` is on the platform's own origins: the API's scheme and port, one of its hosts. */
export function isPlatformHost(url: URL, apiUrl: string, extraHosts: readonly string[] = []): boolean {
  const api = new URL(apiUrl);
  if (url.protocol !== api.protocol || url.port !== api.port || url.username || url.password) return false;
  const host = url.hostname.toLowerCase();
  const apiHost = api.hostname.toLowerCase();
  return host === apiHost || host.endsWith(`.${apiHost}`) || extraHosts.includes(host);
}

/** The response after redirects on allowed hosts, with a body to read. */
export async function downloadFromPlatform(download: PlatformDownload): Promise<{ bytes: Uint8Array; contentType: string }> {
  const signal = download.signal ? AbortSignal.any([download.signal, AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS)]) : AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS);
  let url = parse(download.url);
  for (let hop = 0; hop <= MAX_DOWNLOAD_REDIRECTS; hop += 1) {
    if (!isPlatformHost(url, download.apiUrl, download.extraHosts)) {
      throw new AttachmentDownloadError(`the file is not on the platform's own hosts (${url.host}); it was not downloaded`);
    }
    const response = await (download.fetch ?? fetch)(url, { redirect: 'manual', signal, headers: download.headers ?? {} }).catch((error: unknown) => {
      throw new AttachmentDownloadError(`could not reach ${url.host}`, { cause: error });
    });
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      url = new URL(location, url);
      continue;
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new AttachmentDownloadError(`the platform answered HTTP ${response.status}`);
    }
    const declared = Number(response.headers.get('content-length') ?? Number.NaN);
    if (declared > download.maxBytes) {
      await response.body?.cancel();
      throw new AttachmentDownloadError(`larger than the ${download.maxBytes}-byte limit`);
    }
    return { bytes: await readCapped(response, download.maxBytes), contentType: response.headers.get('content-type') ?? '' };
  }
  throw new AttachmentDownloadError(`more than ${MAX_DOWNLOAD_REDIRECTS} redirects`);
}

function parse(url: string): URL {
  try {
    return new URL(url);
  } catch (error) {
    throw new AttachmentDownloadError('the file has no valid address', { cause: error });
  }
}

async function readCapped(response: Response, maxBytes: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = response.body?.getReader();
  if (!reader) return new Uint8Array();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > maxBytes) {
      await reader.cancel();
      throw new AttachmentDownloadError(`larger than the ${maxBytes}-byte limit`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
