/**
 * A reply on Slack. Where the workspace offers Slack's streaming methods, the first text starts
 * the stream at once (`chat.startStream`, no 256-character buffering), later text is appended
 * (`chat.appendStream`) and `chat.stopStream` ends it with the final text and buttons. Elsewhere
 * — or once a workspace refused a streaming method (`not_allowed`, `unknown_method`, a missing
 * scope), which is remembered — a placeholder is posted and edited (`chat.update`).
 * Either way the thread gets a status at once (`assistant.threads.setStatus`, its own budget), so
 * every mention shows a sign even while posting in the channel is paced, and a reply whose text is
 * complete before its turn to post is folded into one `chat.postMessage`.
 * https://docs.slack.dev/reference/methods/chat.startStream ·
 * https://docs.slack.dev/reference/methods/chat.appendStream ·
 * https://docs.slack.dev/reference/methods/chat.stopStream
 */
import type { WebClient } from '@slack/web-api';
import type { Button, ReplyStream, TaskUpdate } from '../../commands/chat-surface.js';
import { displayOf } from '../../commands/reply/edit-reply-stream.js';
import { blocksFor } from './cards.js';
import { escapeSlackText } from './markdown.js';
import { identityFields, isMissingCustomize } from './identity.js';
import { messageRef } from './ids.js';
import { STREAM_START_MAX_WAIT_MS, postBudget } from './method-tiers.js';
import { createReplyControls } from './agent-sessions.js';
import { createTaskQueue, sendWithTasks } from './task-chunks.js';
import {
  errorCode,
  REFUSALS,
  STREAM_GAVE_UP_NOTE,
  withPrefix,
  type SlackMessaging,
  type SlackReplyStreamOptions,
  type StreamContent,
} from './slack-messaging.js';

export { createStreamingSupport, STREAM_GAVE_UP_NOTE, type SlackMessaging } from './slack-messaging.js';

type StopStreamArguments = Parameters<WebClient['chat']['stopStream']>[0];

let streamCount = 0;
const MAX_FAILURES_BEFORE_STOP = 3;
/**
 * chat.startStream is Tier 2 (20 a minute per workspace): when its window is spent for longer
 * than STREAM_START_MAX_WAIT_MS as the first text comes, the reply posts a placeholder and edits
 * it instead of waiting for the window; at its turn to post, it streams only if the window (as
 * every replica spent it) has room then; a 429 asking for longer (Slack counted more than we did,
 * e.g. after a restart) gets the placeholder too.
 */

export function createSlackReplyStream(slack: SlackMessaging, options: SlackReplyStreamOptions): ReplyStream {
  const { caller, client } = slack;
  const { channel, threadTs, team, identity } = options;
  const key = `reply:${++streamCount}`;
  const statusKey = `status:${channel}/${threadTs}`;
  // Outside a DM, Slack addresses a stream to one user of one team.
  const canStream = options.useStreaming && slack.streaming.offered(team) && (options.recipientUser !== undefined || channel.startsWith('D'));
  let mode: 'stream' | 'edit' = canStream ? 'stream' : 'edit';
  // Edits of a placeholder are spaced further apart as more replies stream (chat.update also
  // carries final texts); streams share the append budget in turn instead (`call-budget.ts`).
  let closeBudget = mode === 'stream' ? () => undefined : caller.budget.openStream('chat.update');
  // Until this reply's first post goes, Stop companions in the channel leave its turn free.
  const firstPosted = caller.budget.expectFirst(postBudget(channel));
  let ts: string | undefined;
  let text = '';
  let statusText = '';
  /** Stream mode: the escaped markdown Slack shows. Edit mode: the text of the last post or edit. */
  let shown = '';
  let statusShown = '';
  /** A status set after the stream's message exists stays until cleared (Slack clears it only on a new message). */
  let statusAfterStart = false;
  let acknowledged = false;
  let job: Promise<void> | undefined;
  let final: { text: string; buttons?: Button[] } | undefined;
  let done = false;
  let failures = 0;
  // A streamed message takes no buttons: its Stop is Slack's own in the agent session, else a companion message's.
  const companion = createReplyControls(slack, options, key, mode === 'stream');
  const tasks = createTaskQueue();
  /** Plan mode: the plan's title goes with the stream's first call. */
  const planTitle = options.taskDisplay === 'plan' ? options.planTitle : undefined;
  const chunksOffered = () => mode === 'stream' && slack.chunks.offered(team);
  /** The buttons of a placeholder: none while the companion carries them. */
  const placeholderButtons = () => (companion?.active ? undefined : options.buttons);

  const report = (what: string) => (error: unknown) => slack.logger.warn(what, { channel, error });
  const markdown = (value: string) => escapeSlackText(value);
  const namePrefix = () => (identity && !slack.customize.available() ? `**${identity.name}**: ` : '');

  function track(promise: Promise<void>): void {
    const current = promise
      .then(
        () => {
          failures = 0;
        },
        (error: unknown) => {
          failures++;
          throw error;
        },
      )
      .finally(() => {
        if (job === current) job = undefined;
        if (!final && !done) advance();
      });
    job = current;
    current.catch(report('reply stream call failed'));
  }

  /** Runs the next call this reply needs, if none is waiting. */
  function advance(): void {
    // A call that keeps failing is not retried at every token: `stop` makes the last attempt.
    if (job || done || final || failures >= MAX_FAILURES_BEFORE_STOP) return;
    if (ts === undefined) {
      if (mode === 'stream' && text.trim().length === 0 && !tasks.waiting) return;
      if (mode === 'stream' && caller.budget.waitMs('chat.startStream') > STREAM_START_MAX_WAIT_MS) switchToEdits();
      // The turn is the channel's posting budget alone: `first` spends chat.startStream's Tier 2 only
      // when a stream really starts (a reply complete by then is one chat.postMessage).
      track(caller.budgeted({ method: 'chat.postMessage', channel, priority: 'first', coalesceKey: key, call: first }));
    } else if (mode === 'stream') {
      if (tasks.waiting || (markdown(text) !== shown && markdown(text).startsWith(shown)))
        track(caller.budgeted({ method: 'chat.appendStream', channel, priority: 'edit', coalesceKey: key, call: () => appendNow() }));
    } else if (displayOf(tasks.compose(text), statusText) !== shown) {
      track(caller.budgeted({ method: 'chat.update', channel, priority: 'edit', coalesceKey: key, call: editNow }));
    }
  }

  /** The first post of this reply, when its turn comes: folded into one post when the text is already complete. */
  async function first(): Promise<void> {
    firstPosted();
    if (final) {
      tasks.toLines();
      const whole = tasks.compose(final.text);
      // A plan ended before it showed anything: nothing to post.
      if (whole.trim().length > 0 || (final.buttons?.length ?? 0) > 0)
        ts = await slack.postMessage(channel, threadTs, whole, identity, final.buttons, 'first', undefined, true);
      done = true;
      return;
    }
    // Another reply may have learnt meanwhile that this workspace refuses streaming.
    if (mode === 'stream' && !slack.streaming.offered(team)) switchToEdits();
    // The workspace's Tier 2 window, as every replica spent it, has no room now: a placeholder instead.
    if (mode === 'stream' && (await caller.budget.takeNow('chat.startStream')) > 0) switchToEdits();
    if (mode === 'edit') return postPlaceholder();
    try {
      await startStream();
    } catch (error) {
      if (REFUSALS.has(errorCode(error) ?? '')) slack.streaming.refuse(team, errorCode(error)!);
      else slack.logger.warn('chat.startStream failed: this reply uses a placeholder and chat.update', { channel, error });
      switchToEdits();
      // A refused call cost nothing at Slack: the post goes out in the same turn.
      await postPlaceholder();
    }
  }

  /**
   * One streaming call with what is new since `shown`: `markdown_text` alone, or `chunks` when task
   * cards go with it (the text around them in order). A workspace that refuses the chunks is
   * remembered and the call is made again with the tasks as text lines. Undefined: nothing to send.
   */
  async function withContent<T>(whole: string, send: (fields: StreamContent) => Promise<T>): Promise<{ response: T; sent: string } | undefined> {
    const build = () => tasks.content({ whole, shown, markdown, asChunks: chunksOffered(), starting: ts === undefined, planTitle });
    return sendWithTasks(build, send, (reason) => slack.chunks.refuse(team, reason), REFUSALS);
  }

  /** The name in bold before the first text when the bot posts as itself (decided when the call goes). */
  const withName = (fields: StreamContent): StreamContent => withPrefix(fields, namePrefix());

  async function startStream(): Promise<void> {
    const send = (fields: StreamContent, withIdentity: boolean) =>
      caller.send('chat.startStream', channel, () =>
        client.chat.startStream({
          channel,
          thread_ts: threadTs,
          ...withName(fields),
          ...(options.recipientUser ? { recipient_user_id: options.recipientUser, recipient_team_id: team } : {}),
          ...(withIdentity ? identityFields(identity) : {}),
        } as Parameters<WebClient['chat']['startStream']>[0]),
      );
    const start = async (fields: StreamContent) => {
      try {
        return await send(fields, slack.customize.available());
      } catch (error) {
        if (
          !(
            identity &&
            slack.customize.available() &&
            isMissingCustomize(error) &&
            (error as { data?: { needed?: string } }).data?.needed === 'chat:write.customize'
          )
        )
          throw error;
        slack.customize.missing();
        return send(fields, false);
      }
    };
    // What is sent is fixed when the call goes: the text may grow meanwhile, and `shown` must be what was sent.
    const started = await withContent(text, start);
    if (!started) return;
    ts = started.response.ts as string;
    shown = started.sent;
  }

  async function postPlaceholder(): Promise<void> {
    const body = displayOf(tasks.compose(text), statusText);
    const buttons = placeholderButtons();
    ts = await slack.postMessage(channel, threadTs, body, identity, buttons, 'first', undefined, true);
    shown = body;
    if (buttons && buttons.length > 0) options.onControl?.({ message: messageRef(team, channel, ts), kind: 'message' });
  }

  /** From now on a placeholder edited in place, which carries the Stop button itself: the companion goes. */
  function switchToEdits(): void {
    mode = 'edit';
    // Tasks given meanwhile become lines of the placeholder's text.
    tasks.toLines();
    closeBudget();
    closeBudget = caller.budget.openStream('chat.update');
    // Not awaited: the placeholder does not wait for the companion (whose post may be waiting out a 429).
    void companion?.remove();
  }

  /** What is new since `shown`, appended: the text so far while streaming, or the final text (`whole`) when the stop must wait. */
  async function appendNow(whole?: string): Promise<void> {
    const from = whole ?? text;
    const next = markdown(from);
    if ((final && whole === undefined) || ts === undefined || !next.startsWith(shown) || (next === shown && !tasks.waiting)) return;
    const append = (fields: StreamContent) => client.chat.appendStream({ channel, ts: ts!, ...fields } as Parameters<WebClient['chat']['appendStream']>[0]);
    const appended = await withContent(from, (fields) =>
      whole === undefined
        ? caller.send('chat.appendStream', channel, () => append(fields))
        : caller({ method: 'chat.appendStream', channel, priority: 'final', call: () => append(fields) }),
    );
    if (appended) shown = appended.sent;
  }

  async function editNow(): Promise<void> {
    const body = displayOf(tasks.compose(text), statusText);
    if (final || ts === undefined || body === shown) return;
    await slack.update(channel, ts, body, identity, placeholderButtons(), 'edit', undefined, true);
    shown = body;
  }

  /** Ends a started stream; if Slack no longer takes it (expired), the rest goes in a new message. */
  async function stopStream(last: { text: string; buttons?: Button[] }): Promise<void> {
    const next = markdown(last.text);
    const rest = next.startsWith(shown) ? next.slice(shown.length) : '';
    const blocks = last.buttons && last.buttons.length > 0 ? blocksFor(' ', last.buttons)?.filter((block) => block.type === 'actions') : undefined;
    const stopWith = (fields: StreamContent | Record<string, never>) =>
      caller({
        method: 'chat.stopStream',
        channel,
        priority: 'final',
        call: () => client.chat.stopStream({ channel, ts: ts!, ...fields, ...(blocks ? { blocks } : {}), ...companion?.stopFields() } as StopStreamArguments),
      });
    try {
      // chat.stopStream is Tier 2 like the starts, and the stops of streams begun in different minutes
      // can meet in one: the final text then goes at once on Tier 4 and the bare stop, with the
      // buttons, at its turn.
      if (next.startsWith(shown) && caller.budget.waitMs('chat.stopStream') > STREAM_START_MAX_WAIT_MS) await appendNow(last.text);
      // The text after what is shown, and the tasks still waiting, in order; nothing new: a bare stop.
      if (!next.startsWith(shown) || !(await withContent(last.text, stopWith))) await stopWith({});
    } catch (error) {
      slack.logger.warn('chat.stopStream failed: the rest of the reply goes in a new message', { channel, error });
      const tail = next.startsWith(shown) ? last.text.slice(Math.max(0, last.text.length - rest.length)) : last.text;
      // The streamed message stays as Slack last took it: say why it looks cut off, then the rest.
      const note = `_${STREAM_GAVE_UP_NOTE}_`;
      await slack.postMessage(channel, threadTs, tail.trim().length > 0 ? `${note}\n${tail}` : note, identity, last.buttons, 'final');
    }
  }

  return {
    get appendOnly() {
      return mode === 'stream';
    },
    get tasks() {
      return chunksOffered() && !done && !final;
    },
    task(update: TaskUpdate) {
      if (done) return;
      // At the end of the text given so far: the card shows between that text and what follows.
      if (mode === 'stream') tasks.add(update, text.length);
      else tasks.addLine(update, text.length);
      advance();
    },
    append(next) {
      text = next;
      if (!done && !final) companion?.show();
      advance();
    },
    status(next) {
      statusText = next;
      if (!done && !final) companion?.show();
      // The first status is the mention's visible sign; later ones follow in the thread (stream) or in the message (edits).
      if (done) return;
      if (next && !acknowledged) {
        acknowledged = true;
        statusShown = next;
        slack.setStatus(channel, threadTs, next, 'ack', statusKey).catch(report('status failed'));
      } else if (mode === 'stream' && next !== statusShown) {
        // Slack clears the status when the stream's message appears: only a later status needs clearing.
        const needed = next !== '' || statusAfterStart;
        statusShown = next;
        if (ts !== undefined && next !== '') statusAfterStart = true;
        if (needed) slack.setStatus(channel, threadTs, next, 'edit', statusKey).catch(report('status failed'));
      }
      if (mode === 'edit') advance();
    },
    async stop(last) {
      final = last;
      try {
        // The Stop button goes first: once the reply's last text shows, nothing is left to stop.
        await companion?.remove();
        // A waiting intermediate call is dropped (the final one carries its text); a running one is awaited.
        if (ts !== undefined) caller.budget.cancel(key);
        // Complete before its first post: one chat.postMessage (`first` folds it), on the posting budget alone.
        if (ts === undefined && !job) track(caller.budgeted({ method: 'chat.postMessage', channel, priority: 'final', coalesceKey: key, call: first }));
        while (job) await job.catch(() => undefined);
        if (done) return;
        if (ts === undefined) {
          // The first post failed: post the whole reply now.
          tasks.toLines();
          ts = await slack.postMessage(channel, threadTs, tasks.compose(last.text), identity, last.buttons, 'final');
        } else if (mode === 'stream') await stopStream(last);
        else await slack.update(channel, ts, tasks.compose(last.text), identity, last.buttons ?? [], 'final', key);
        done = true;
      } catch (error) {
        final = undefined;
        throw error;
      } finally {
        firstPosted();
        if (done) {
          closeBudget();
          companion?.finish(mode === 'stream');
          if (mode === 'stream' && statusAfterStart && statusShown !== '')
            slack.setStatus(channel, threadTs, '', 'final', statusKey).catch(report('status not cleared'));
        }
      }
    },
  };
}
