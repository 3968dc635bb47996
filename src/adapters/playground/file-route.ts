/**
 * GET /api/files?id=…[&view=image]: a file of the chat, for the page (which shows it from a blob:
 * URL). The bot's SVG pictures are shown as images under a CSP that runs nothing; a file the user
 * attached is shown as an image only when it is a plain raster type (never SVG or HTML, which could
 * carry script into this origin), and is otherwise always a download of bytes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PlaygroundState } from './state.js';

/** Attached types the page may show inline as a picture. */
export const RASTER_IMAGE_TYPES: ReadonlySet<string> = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
const IMAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'";

export function sendFile(state: PlaygroundState, request: IncomingMessage, response: ServerResponse, headers: Record<string, string>): void {
  const query = new URL(request.url ?? '/', 'http://127.0.0.1').searchParams;
  const file = state.file(query.get('id') ?? '');
  if (!file) {
    response.writeHead(404, { ...headers, 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify({ ok: false, error: 'no such file' }));
    return;
  }
  const safeName = file.fileName.replace(/[^\w.-]+/g, '_').slice(0, 120) || 'file.txt';
  const asImage = query.get('view') === 'image';
  if (file.attached) {
    const bytes = Buffer.from(file.content, 'base64');
    if (asImage && RASTER_IMAGE_TYPES.has(file.attached.mediaType)) {
      response.writeHead(200, { ...headers, 'content-type': file.attached.mediaType, 'content-security-policy': IMAGE_CSP }).end(bytes);
      return;
    }
    response
      .writeHead(200, {
        ...headers,
        'content-type': 'application/octet-stream',
        'content-disposition': `attachment; filename="${safeName}"`,
        'content-security-policy': IMAGE_CSP,
      })
      .end(bytes);
    return;
  }
  if (file.image && asImage) {
    // Shown by <img>: an SVG image document runs no script, and this CSP forbids it anyway.
    response.writeHead(200, { ...headers, 'content-type': 'image/svg+xml', 'content-security-policy': IMAGE_CSP }).end(file.content);
    return;
  }
  response
    .writeHead(200, { ...headers, 'content-type': 'text/plain; charset=utf-8', 'content-disposition': `attachment; filename="${safeName}"` })
    .end(file.content);
}
