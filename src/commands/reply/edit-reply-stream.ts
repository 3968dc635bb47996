/**
 * The reply stream of surfaces that edit messages in place (Discord, the playground, and any
 * surface without `startStream`): a placeholder at the first status or text, then edits coalesced
 * to one per `intervalMs`, the status shown as the last line, and a final edit with the buttons.
 */
import type { Button, ChatSurface, Identity, MessageRef, ReplyStream, StreamOptions } from '../chat-surface.js';

export interface EditReplyStreamOptions extends StreamOptions {
  surface: Pick<ChatSurface, 'post' | 'edit'>;
  intervalMs: number;
  now?: () => number;
  onError?: (error: unknown) => void;
}

/** What an edited reply shows: its text with the status under it, or the status alone. */
export function displayOf(text: string, status: string): string {
  if (text.trim().length === 0) return status || '💭 …';
  return status ? `${text.replace(/\n?$/, '\n')}${status}` : text;
}

export function createEditReplyStream(options: EditReplyStreamOptions): ReplyStream {
  const { surface, thread } = options;
  const identity: Identity | undefined = options.identity;
  const now = options.now ?? Date.now;
  let message: MessageRef | undefined;
  let posting: Promise<void> | undefined;
  let text = '';
  let statusText = '';
  let shown = '';
  let lastEditAt = 0;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;
  let stopped = false;

  const report = (error: unknown) => options.onError?.(error);

  function post(body: string, buttons: Button[] | undefined): Promise<void> {
    posting = surface
      .post({ thread, text: body, identity, buttons })
      .then((ref) => {
        message = ref;
        if (buttons === options.buttons && buttons && buttons.length > 0) options.onControl?.({ message: ref, kind: 'message' });
        shown = body;
        // Posting is not an edit: the next text may follow after one interval.
        lastEditAt = now();
      })
      .finally(() => {
        posting = undefined;
      });
    return posting;
  }

  function schedule(): void {
    if (stopped || timer || inFlight || posting) return;
    if (message === undefined) {
      post(displayOf(text, statusText), options.buttons).catch(report);
      return;
    }
    timer = setTimeout(
      () => {
        timer = undefined;
        const body = displayOf(text, statusText);
        if (stopped || body === shown || message === undefined) return;
        inFlight = surface
          .edit({ message, text: body, identity, buttons: options.buttons })
          .then(() => {
            shown = body;
            lastEditAt = now();
          })
          .catch(report)
          .finally(() => {
            inFlight = undefined;
            if (!stopped && displayOf(text, statusText) !== shown) schedule();
          });
      },
      Math.max(0, lastEditAt + options.intervalMs - now()),
    );
  }

  return {
    append(next) {
      text = next;
      schedule();
    },
    status(next) {
      if (next === statusText) return;
      statusText = next;
      schedule();
    },
    async stop(final) {
      // Stopped first: an edit still in flight must not schedule another after the final one.
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await posting?.catch(() => undefined);
      await inFlight;
      text = final.text;
      statusText = '';
      if (message === undefined) await post(final.text, final.buttons);
      else await surface.edit({ message, text: final.text, identity, buttons: final.buttons ?? [] });
    },
  };
}
