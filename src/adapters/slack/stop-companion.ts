/**
 * The Stop button of a streamed Slack reply. `chat.startStream` and `chat.appendStream` take no
 * blocks, and a streamed message only grows, so a button inside it could never be taken away:
 * while the reply streams, a small companion message in the thread carries the Stop button from
 * the reply's first second where the channel's posting budget has room to spare (in a busy
 * channel it waits, and a reply that ends first never posts it), and it is deleted when the reply ends (`chat.delete`; where Slack
 * refuses that, edited to a plain line without the button). A reply that ends before the
 * companion's turn to post never posts it.
 * https://docs.slack.dev/reference/methods/chat.delete
 */
import type { WebClient } from '@slack/web-api';
import type { Button } from '../../commands/chat-surface.js';
import type { Logger } from '../../core/logger.js';
import type { SlackCaller } from './call-budget.js';
import { blocksFor } from './cards.js';
import { toSlackMrkdwn } from './markdown.js';

export interface StopCompanion {
  /** Posts the companion (once; nothing happens after `remove`). */
  show(): void;
  /** True once `show` was called and `remove` was not: the reply's own messages go without the Stop button. */
  readonly active: boolean;
  /** Takes the companion away (cancelled if still waiting, deleted once posted); never throws. */
  remove(): Promise<void>;
}

export interface StopCompanionOptions {
  client: WebClient;
  caller: SlackCaller;
  logger: Logger;
  channel: string;
  threadTs: string;
  /** Who is replying, for the companion's line. */
  name?: string;
  buttons: Button[];
  /** Unique per reply: the waiting post is cancelled by it. */
  key: string;
  /** Told the companion's ts once it is posted (restart recovery takes a dead run's companion away). */
  onPosted?: (ts: string) => void;
}

/** The companion's line: who is replying; the Stop button says the rest. */
export const companionText = (name: string | undefined): string => `_${name ?? 'TSUKA'} is replying…_`;
/** What a companion that could not be deleted says once the reply ended. */
const ENDED_TEXT = '_Reply ended._';

export function createStopCompanion(options: StopCompanionOptions): StopCompanion {
  const { caller, client, channel, logger } = options;
  const coalesceKey = `companion:${options.key}`;
  let state: 'idle' | 'shown' | 'removed' = 'idle';
  let posting: Promise<string | undefined> | undefined;

  function post(): Promise<string | undefined> {
    const text = toSlackMrkdwn(companionText(options.name));
    // Only from room to spare in the channel: a reply's words, its own and others', matter more than its button.
    return caller({
      method: 'chat.postMessage',
      channel,
      priority: 'spare',
      coalesceKey,
      call: () =>
        client.chat.postMessage({ channel, thread_ts: options.threadTs, text, blocks: blocksFor(text, options.buttons), unfurl_links: false } as Parameters<
          WebClient['chat']['postMessage']
        >[0]),
    }).then(
      // A cancelled post resolves to undefined: nothing was posted.
      (response) => {
        const ts = (response as { ts?: string } | undefined)?.ts;
        if (ts) options.onPosted?.(ts);
        return ts;
      },
      (error: unknown) => {
        logger.warn('the Stop button of a streamed reply could not be posted', { channel, error });
        return undefined;
      },
    );
  }

  async function takeAway(ts: string): Promise<void> {
    try {
      await caller({ method: 'chat.delete', channel, priority: 'final', call: () => client.chat.delete({ channel, ts }) });
    } catch (error) {
      logger.debug('the Stop companion could not be deleted: its button is removed instead', { channel, error });
      const text = toSlackMrkdwn(ENDED_TEXT);
      await caller({
        method: 'chat.update',
        channel,
        priority: 'final',
        call: () => client.chat.update({ channel, ts, text, blocks: [] } as Parameters<WebClient['chat']['update']>[0]),
      }).catch((failure: unknown) => logger.warn('the Stop button of a streamed reply could not be removed', { channel, error: failure }));
    }
  }

  return {
    show() {
      if (state !== 'idle') return;
      state = 'shown';
      posting = post();
    },
    get active() {
      return state === 'shown';
    },
    async remove() {
      if (state !== 'shown') {
        state = 'removed';
        return;
      }
      state = 'removed';
      caller.budget.cancel(coalesceKey);
      const ts = await posting;
      if (ts) await takeAway(ts);
    },
  };
}
