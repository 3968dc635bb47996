/**
 * Masks secret values in everything the command layer posts, edits, uploads or shows privately:
 * model output can repeat a secret it read, and this is the one boundary every text crosses.
 */
import type { ChatSurface, ReplyStream } from './chat-surface.js';

/**
 * A stream's text is masked as a whole each time. The reply renderer holds back a word still being
 * written, so a secret is never shown half-typed before it can be recognised and masked.
 */
function maskStream(stream: ReplyStream, mask: (text: string) => string): ReplyStream {
  return {
    append: (text) => stream.append(mask(text)),
    status: (text) => stream.status(mask(text)),
    stop: (options) => stream.stop({ ...options, text: mask(options.text) }),
  };
}

export function createMaskingSurface(surface: ChatSurface, mask: (text: string) => string): ChatSurface {
  const masked: ChatSurface = {
    platform: surface.platform,
    limits: surface.limits,
    threadFor: (options) => surface.threadFor({ ...options, title: mask(options.title) }),
    postRoot: (options) => surface.postRoot({ ...options, text: mask(options.text), threadTitle: mask(options.threadTitle) }),
    post: (options) => surface.post({ ...options, text: mask(options.text) }),
    edit: (options) => surface.edit({ ...options, text: mask(options.text) }),
    ...(surface.startStream ? { startStream: (options) => maskStream(surface.startStream!(options), mask) } : {}),
    postEphemeral: (options) => surface.postEphemeral({ ...options, text: mask(options.text) }),
    uploadFile: (options) => surface.uploadFile({ ...options, content: mask(options.content), title: mask(options.title) }),
    setStatus: (options) => surface.setStatus({ ...options, text: mask(options.text) }),
    channelOf: (thread) => surface.channelOf(thread),
    mention: (user) => surface.mention(user),
  };
  return masked;
}
