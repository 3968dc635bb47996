/**
 * Masks secret values in everything the command layer posts, edits, uploads or shows privately:
 * model output can repeat a secret it read, and this is the one boundary every text crosses.
 */
import { stripControlCharacters } from '../core/safety/control-characters.js';
import type { Button, ChatSurface, ReplyStream, TaskUpdate } from './chat-surface.js';

/** The shortest time between two texts given to a stream (see maskStream). */
export const STREAM_APPEND_INTERVAL_MS = 100;

/** Button labels can quote a command ("Approve “node x.js” for this run"). */
function maskButtons(buttons: Button[] | undefined, mask: (text: string) => string): { buttons?: Button[] } {
  return buttons
    ? {
        buttons: buttons.map((button) => ({
          ...button,
          label: mask(button.label),
          ...(button.options ? { options: button.options.map((option) => ({ ...option, label: mask(option.label) })) } : {}),
        })),
      }
    : {};
}

/**
 * The renderer gives a stream its whole text after every token, and each text is masked whole (a
 * secret may be cut anywhere), which grew with the square of a reply's length. What reaches the
 * stream is therefore the newest text at most every `appendIntervalMs`: the first at once, the
 * later ones after at most that long, and always before a task or the end, so nothing is shown out
 * of order. No platform shows a stream faster (Slack's appends and Discord's edits are a
 * second apart). The reply renderer holds back a word still being written, so a secret is never
 * shown half-typed before it can be recognised and masked.
 */
function maskStream(stream: ReplyStream, mask: (text: string) => string, appendIntervalMs: number): ReplyStream {
  let waiting: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  let sentAt = Number.NEGATIVE_INFINITY;
  let status: { text: string; masked: string } | undefined;
  const send = (): void => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (waiting === undefined) return;
    const text = waiting;
    waiting = undefined;
    sentAt = performance.now();
    stream.append(mask(text));
  };
  return {
    // Read through: a stream may change its mind (Slack: streaming refused, tasks refused).
    get appendOnly() {
      return stream.appendOnly;
    },
    get tasks() {
      return stream.tasks;
    },
    append: (text) => {
      waiting = text;
      if (timer) return;
      const wait = sentAt + appendIntervalMs - performance.now();
      if (wait <= 0) send();
      else timer = setTimeout(send, wait).unref();
    },
    // A status is a transient line beside the text, in no order with it: it does not wait.
    status: (text) => {
      if (status?.text !== text) status = { text, masked: mask(text) };
      stream.status(status.masked);
    },
    stop: (options) => {
      if (timer) clearTimeout(timer);
      timer = undefined;
      waiting = undefined;
      return stream.stop({ ...options, text: mask(options.text), ...maskButtons(options.buttons, mask) });
    },
    ...(stream.task
      ? {
          task: (update: TaskUpdate) => {
            send();
            stream.task!(maskTask(update, mask));
          },
        }
      : {}),
  };
}

/** Every text of a task is masked: its title quotes arguments, its output and sources what a tool read. */
function maskTask(update: TaskUpdate, mask: (text: string) => string): TaskUpdate {
  return {
    ...update,
    title: mask(update.title),
    ...(update.details !== undefined ? { details: mask(update.details) } : {}),
    ...(update.output !== undefined ? { output: mask(update.output) } : {}),
    ...(update.line !== undefined ? { line: mask(update.line) } : {}),
    ...(update.sources ? { sources: update.sources.map((source) => ({ url: mask(source.url), text: mask(source.text) })) } : {}),
  };
}

/**
 * Also strips terminal escapes, control characters and bidirectional overrides: a tool's output
 * (or a hostile repository's file) must not change what people see, nor what an approval card says.
 */
export function createMaskingSurface(
  surface: ChatSurface,
  maskSecrets: (text: string) => string,
  { appendIntervalMs = STREAM_APPEND_INTERVAL_MS }: { appendIntervalMs?: number } = {},
): ChatSurface {
  const mask = (text: string) => stripControlCharacters(maskSecrets(text));
  const masked: ChatSurface = {
    platform: surface.platform,
    limits: surface.limits,
    threadFor: (options) => surface.threadFor({ ...options, title: mask(options.title) }),
    postRoot: (options) => surface.postRoot({ ...options, text: mask(options.text), threadTitle: mask(options.threadTitle) }),
    post: (options) => surface.post({ ...options, text: mask(options.text), ...maskButtons(options.buttons, mask) }),
    edit: (options) => surface.edit({ ...options, text: mask(options.text), ...maskButtons(options.buttons, mask) }),
    ...(surface.clearButtons ? { clearButtons: (options) => surface.clearButtons!(options) } : {}),
    ...(surface.startStream
      ? {
          startStream: (options) =>
            maskStream(surface.startStream!({ ...options, ...(options.title ? { title: mask(options.title) } : {}) }), mask, appendIntervalMs),
        }
      : {}),
    ...(surface.startPlan
      ? {
          startPlan: (options) => {
            const plan = surface.startPlan!({ ...options, title: mask(options.title) });
            return plan && maskStream(plan, mask, appendIntervalMs);
          },
        }
      : {}),
    postEphemeral: (options) => surface.postEphemeral({ ...options, text: mask(options.text) }),
    uploadFile: (options) => surface.uploadFile({ ...options, content: mask(options.content), title: mask(options.title) }),
    ...(surface.uploadToUser
      ? { uploadToUser: (options) => surface.uploadToUser!({ ...options, content: mask(options.content), title: mask(options.title) }) }
      : {}),
    ...(surface.postToUser ? { postToUser: (options) => surface.postToUser!({ ...options, text: mask(options.text) }) } : {}),
    ...(surface.uploadImage
      ? {
          uploadImage: (options) =>
            surface.uploadImage!({ ...options, title: mask(options.title), altText: mask(options.altText), svg: maskSecrets(options.svg) }),
        }
      : {}),
    setStatus: (options) => surface.setStatus({ ...options, text: mask(options.text) }),
    channelOf: (thread) => surface.channelOf(thread),
    ...(surface.channelInfo ? { channelInfo: (channel) => surface.channelInfo!(channel) } : {}),
    ...(surface.isMember ? { isMember: (channel, user) => surface.isMember!(channel, user) } : {}),
    ...(surface.groupMembers ? { groupMembers: (group, channel) => surface.groupMembers!(group, channel) } : {}),
    // Inbound reads: what comes back is masked where it enters a prompt (thread-context, inbound-files).
    ...(surface.threadHistory ? { threadHistory: (request) => surface.threadHistory!(request) } : {}),
    ...(surface.downloadFile ? { downloadFile: (file, options) => surface.downloadFile!(file, options) } : {}),
    mention: (user) => surface.mention(user),
  };
  return masked;
}
