/**
 * Masks secret values in everything the command layer posts, edits, uploads or shows privately:
 * model output can repeat a secret it read, and this is the one boundary every text crosses.
 */
import type { Button, ChatSurface } from './chat-surface.js';

export function createMaskingSurface(surface: ChatSurface, mask: (text: string) => string): ChatSurface {
  // Button labels can quote a command ("Approve `node x.js` for this run").
  const maskButtons = (buttons: Button[] | undefined): { buttons?: Button[] } => (buttons ? { buttons: buttons.map((button) => ({ ...button, label: mask(button.label) })) } : {});
  return {
    platform: surface.platform,
    limits: surface.limits,
    threadFor: (options) => surface.threadFor({ ...options, title: mask(options.title) }),
    postRoot: (options) => surface.postRoot({ ...options, text: mask(options.text), threadTitle: mask(options.threadTitle) }),
    post: (options) => surface.post({ ...options, text: mask(options.text), ...maskButtons(options.buttons) }),
    edit: (options) => surface.edit({ ...options, text: mask(options.text), ...maskButtons(options.buttons) }),
    postEphemeral: (options) => surface.postEphemeral({ ...options, text: mask(options.text) }),
    uploadFile: (options) => surface.uploadFile({ ...options, content: mask(options.content), title: mask(options.title) }),
    ...(surface.uploadImage ? { uploadImage: (options) => surface.uploadImage!({ ...options, title: mask(options.title), altText: mask(options.altText), svg: mask(options.svg) }) } : {}),
    setStatus: (options) => surface.setStatus({ ...options, text: mask(options.text) }),
    channelOf: (thread) => surface.channelOf(thread),
    mention: (user) => surface.mention(user),
  };
}
