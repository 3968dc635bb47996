/**
 * Conversations in threads: which character answers, one turn at a time per thread (later
 * messages queue), `stop` and `reset` keywords, the Stop button, and stopping everything at shutdown.
 */
import type { Character } from '../../core/data/types.js';
import type { ChatSurface, Platform, ThreadRef, UserRef } from '../chat-surface.js';
import type { CoordinationMessage } from '../../core/coordination/coordination.js';
import { createLocalCoordination } from '../../core/coordination/local-coordination.js';
import type { MentionEvent, ThreadMessageEvent } from '../inbound-event.js';
import type { CommandDependencies } from '../command-dependencies.js';
import type { ApprovalFlow } from '../approvals/approval-flow.js';
import { takeLeadingCharacter, takePlainMention, takeUnknownName } from './character-selection.js';
import { readChannelDefault } from '../channels/settings-store.js';
import { runTurnInThread } from './run-turn.js';
import { RESET_REASON, type ActiveRuns } from '../runs/active-runs.js';
import type { ToolRegistry } from '../../core/tools/tool.js';
import { findCharacter } from '../../core/data/character-lookup.js';
import { depsInChannel } from '../channels/channel-deps.js';
import { createChannelSettings, type ChannelSettings } from '../channels/channel-settings.js';
import { addressesCharacter, addressesPerson, keepSideTalk, shouldAnswer } from './thread-etiquette.js';
import { revivedTurn, storedTurn, turnSource, type QueuedTurn, type StoredTurn } from './conversation-turn.js';

/** The turn this process runs in a thread (the queue itself lives in the coordination). */
interface RunningTurn {
  abort: AbortController;
  runId?: string;
  requester: UserRef;
  done: Promise<void>;
  /** Who pressed Stop (or used /tsuka stop), said in the reply's last line. */
  stoppedBy?: UserRef;
}

const STOP_TOPIC = 'turn-stop';
const FREE_TOPIC = 'turn-free';

export interface Conversations {
  handleMessage(event: MentionEvent | ThreadMessageEvent, surface: ChatSurface): Promise<void>;
  /** Settles when the turn running in `thread` in this process has ended (at once when none runs here). */
  turnDone(thread: ThreadRef): Promise<void>;
  /** Drops every queued message (shutdown; running turns are stopped through ActiveRuns). */
  dropQueues(): void;
  activeThreads(): number;
  queuedMessages(): number;
  /** Answers what is queued in `thread` when its turn is free (or held by the stopped replica `from`). */
  resume(thread: ThreadRef, from?: string): Promise<void>;
  /**
   * A turn nobody typed (a second opinion, a re-run: issue 28) in `thread`, taking the thread's turn
   * or queueing behind it like a message; the caller checked the character and who asks.
   */
  startTurn(thread: ThreadRef, turn: QueuedTurn): Promise<void>;
}

const KEYWORDS = new Set(['stop', 'reset']);

/** Turn-specific tools and services (escalation to /goal, /team, /call when workflows exist). */
export type TurnTooling = (turn: { surface: ChatSurface; channel: string; user: UserRef; userName?: string }) => {
  tools: ToolRegistry;
  services?: Record<string, unknown>;
};

export function createConversations(deps: CommandDependencies, approvals: ApprovalFlow, activeRuns: ActiveRuns, tooling?: TurnTooling): Conversations {
  const coordination = deps.coordination ?? createLocalCoordination();
  const turns = coordination.turns;
  const me = coordination.replicaId;
  /** Turns running in this process, by thread. */
  const running = new Map<ThreadRef, RunningTurn>();
  /** Messages this process saw queued, by thread (for `/tsuka status`; the queue itself is shared). */
  const queued = new Map<ThreadRef, number>();
  /** The surfaces seen so far, to answer a turn queued on another replica. */
  const surfaces = new Map<Platform, ChatSurface>();
  let closing = false;
  const isAdmin = (user: UserRef) => deps.settings.admins.includes(user);

  const forget = (thread: ThreadRef) => queued.delete(thread);
  const channelSettings = deps.channelSettings ?? createChannelSettings(deps);

  /** A message in the thread addressed to a person, or from someone other than its starter, and not to a character: kept, not answered. */
  async function keptAsSideTalk(event: ThreadMessageEvent, channel: ChannelSettings): Promise<boolean> {
    const session = await deps.sessions.get(event.thread);
    const holder = running.get(event.thread)?.requester || (await turns.holder(event.thread))?.requester || undefined;
    const starter = session?.startedBy ?? holder;
    const addressed = addressesCharacter(deps.roster, event.text);
    if (shouldAnswer({ rule: channel.threadReplies, starter, user: event.user, addressed, toPerson: addressesPerson(event.text) })) return false;
    await keepSideTalk(
      deps.sessions,
      event.thread,
      { user: event.user, ...(event.userName ? { userName: event.userName } : {}), text: deps.maskSecrets(event.text), at: Date.now() },
      { character: session?.character ?? channel.defaultCharacter ?? deps.settings.defaultCharacter, startedBy: starter },
    );
    deps.logger.debug('thread message kept as context, not answered', { thread: event.thread });
    return true;
  }

  // Another replica asks to stop or reset a turn running here; a released turn may be ours to answer.
  void coordination
    .subscribe(STOP_TOPIC, (message) => {
      const turn = running.get(String(message.thread));
      if (turn) turn.abort.abort(message.reason === RESET_REASON ? RESET_REASON : undefined);
    })
    .catch((error: unknown) => deps.logger.warn('could not subscribe to turn stops', { error }));
  void coordination
    .subscribe(FREE_TOPIC, (message) => void resume(String(message.thread), typeof message.from === 'string' ? message.from : undefined))
    .catch((error: unknown) => deps.logger.warn('could not subscribe to released turns', { error }));

  async function chooseCharacter(
    event: MentionEvent | ThreadMessageEvent,
    thread: ThreadRef | undefined,
    channelDefault?: string,
  ): Promise<{ character?: Character; rest: string; explicit: boolean; unknownName?: string }> {
    const plain = event.type === 'mention' && event.plain;
    const parsed = plain ? takePlainMention(deps.roster, event.text) : takeLeadingCharacter(deps.roster, event.text);
    if (parsed.character) return { character: parsed.character, rest: parsed.rest, explicit: true };
    // `@picard hello` with no Picard: someone answers, and the thread says who and why.
    const unknown = plain ? undefined : takeUnknownName(deps.roster, event.text);
    const session = thread ? await deps.sessions.get(thread) : undefined;
    const name = session?.character ?? (await readChannelDefault(deps.store, event.channel)) ?? channelDefault ?? deps.settings.defaultCharacter;
    return { character: findCharacter(deps.roster, name), rest: unknown?.rest ?? parsed.rest, explicit: false, unknownName: unknown?.name };
  }

  /** A queued turn back from the coordination; undefined when it can no longer be answered here. */
  function revive(item: CoordinationMessage): QueuedTurn | undefined {
    const stored = item as StoredTurn;
    const surface = surfaces.get(stored.platform);
    const character = findCharacter(deps.roster, stored.character);
    return surface && character ? revivedTurn(stored, surface, character) : undefined;
  }

  /** The turn ended here: the next queued message is answered here too, or the turn is released. */
  async function handOver(thread: ThreadRef): Promise<void> {
    if (closing) {
      // Shutting down: the turn goes back, and another replica (if any) answers what is queued.
      await turns.release(thread);
      if (coordination.shared) await coordination.publish(FREE_TOPIC, { thread });
      return;
    }
    for (;;) {
      const item = await turns.next(thread, { replicaId: me, requester: '' });
      if (!item) {
        forget(thread);
        return;
      }
      queued.set(thread, Math.max(0, (queued.get(thread) ?? 1) - 1));
      const turn = revive(item);
      if (turn) return start(thread, turn);
      deps.logger.warn('dropped a queued message this replica cannot answer', { thread, platform: item.platform });
    }
  }

  /** A turn another replica left (shutdown or lease expired): answer its queue if nobody else does. */
  async function resume(thread: ThreadRef, from?: string): Promise<void> {
    if (closing || running.has(thread)) return;
    const item = await turns.resume(thread, { replicaId: me, requester: '' }, from).catch((error: unknown) => {
      deps.logger.warn('could not resume a released turn', { thread, error });
      return undefined;
    });
    if (!item) return;
    const turn = revive(item);
    if (turn) start(thread, turn);
    else await handOver(thread);
  }

  function start(thread: ThreadRef, turn: QueuedTurn): void {
    const abort = new AbortController();
    const current: RunningTurn = { abort, requester: turn.user, done: Promise.resolve() };
    running.set(thread, current);
    void turns.update(thread, { replicaId: me, requester: turn.user }).catch(() => undefined);
    const extra = tooling?.(turn) ?? { tools: deps.tools };
    // The turn works in its channel's workspace (the `channels` section), else the configured one.
    current.done = depsInChannel(deps, turn.channel, turn.surface)
      .then((scoped) =>
        runTurnInThread(scoped, approvals, {
          ...turn,
          ...extra,
          thread,
          abort,
          stoppedBy: () => current.stoppedBy,
          onRunCreated: (runId) => {
            current.runId = runId;
            void turns.update(thread, { replicaId: me, requester: turn.user, runId }).catch(() => undefined);
            activeRuns.register({
              runId,
              requester: turn.user,
              abort,
              done: current.done,
              onStop: (by) => {
                current.stoppedBy = by;
                void turns.clear(thread).catch(() => undefined);
              },
            });
          },
        }),
      )
      .catch(async (error: unknown) => {
        deps.logger.error('turn failed', { thread, error });
        await turn.surface.post({ thread, text: '⚠️ This turn failed on my side; the details are in the bot log.' }).catch(() => undefined);
      })
      .finally(() => {
        if (running.get(thread) === current) running.delete(thread);
        return handOver(thread).catch((error: unknown) => deps.logger.error('could not hand over a thread turn', { thread, error }));
      });
  }

  /** One turn per thread across every replica: either it is ours now, or the turn waits its turn. */
  async function enter(thread: ThreadRef, turn: QueuedTurn): Promise<void> {
    const entered = await turns.enter(thread, storedTurn(turn), { replicaId: me, requester: turn.user });
    if (!entered.run) {
      queued.set(thread, entered.position);
      await turn.surface.post({ thread, text: `⏳ Queued (${entered.position} waiting): ${turn.character.aiName} will answer after the current turn.` });
      return;
    }
    start(thread, turn);
  }

  async function keyword(word: string, thread: ThreadRef, event: MentionEvent | ThreadMessageEvent, surface: ChatSurface): Promise<void> {
    const local = running.get(thread);
    const holder = local ? { replicaId: me, requester: local.requester } : await turns.holder(thread);
    if (word === 'stop') {
      if (!holder) {
        await surface.postEphemeral({ channel: event.channel, thread, user: event.user, text: 'Nothing is running in this thread.' });
        return;
      }
      if (holder.requester !== event.user && !isAdmin(event.user)) {
        await surface.postEphemeral({ channel: event.channel, thread, user: event.user, text: 'Only the person who asked or an admin can stop this turn.' });
        return;
      }
      await turns.clear(thread);
      forget(thread);
      if (local) local.abort.abort();
      else await coordination.publish(STOP_TOPIC, { thread });
      await surface.post({ thread, text: `⏹ Stopped by ${surface.mention(event.user)}.` });
      return;
    }
    if (holder && holder.requester !== event.user && !isAdmin(event.user)) {
      await surface.postEphemeral({
        channel: event.channel,
        thread,
        user: event.user,
        text: 'A turn is running: only the person who asked or an admin can reset now.',
      });
      return;
    }
    // The reason tells the stopped turn not to save its history over the reset.
    if (local) local.abort.abort(RESET_REASON);
    else if (holder) await coordination.publish(STOP_TOPIC, { thread, reason: RESET_REASON });
    await turns.clear(thread);
    forget(thread);
    await deps.sessions.delete(thread);
    await surface.post({ thread, text: `🔄 Conversation reset by ${surface.mention(event.user)}: the next message starts fresh.` });
  }

  return {
    activeThreads: () => running.size,
    queuedMessages: () => [...queued.values()].reduce((sum, count) => sum + count, 0),
    async handleMessage(event, surface) {
      surfaces.set(surface.platform, surface);
      const existingThread = event.thread;
      if (event.type === 'thread-message') {
        // Only threads this bot is part of; anything else in a channel is not for us.
        if (!running.has(event.thread) && !(await deps.sessions.get(event.thread)) && !(await turns.holder(event.thread))) return;
      }
      const word = event.text
        .trim()
        .toLowerCase()
        .replace(/[.!]+$/, '');
      if (existingThread && KEYWORDS.has(word)) return keyword(word, existingThread, event, surface);
      const channel = await channelSettings(event.channel, surface);
      if (event.type === 'thread-message' && (await keptAsSideTalk(event, channel))) return;
      const choice = await chooseCharacter(event, existingThread, channel.defaultCharacter);
      if (event.type === 'mention' && event.plain && !choice.explicit) return;
      if (choice.character && channel.characters && !channel.characters.includes(choice.character.name)) {
        await surface.postEphemeral({
          channel: event.channel,
          thread: existingThread,
          user: event.user,
          text: `${choice.character.aiName} is not available in this channel. Here: ${channel.characters.join(', ')}.`,
        });
        return;
      }
      if (!choice.character) {
        await surface.postEphemeral({
          channel: event.channel,
          thread: existingThread,
          user: event.user,
          text: `I have no character to answer with: the default "${deps.settings.defaultCharacter}" does not exist. Try /tsuka characters.`,
        });
        return;
      }
      const text = choice.rest || 'Hello!';
      const thread =
        event.type === 'thread-message'
          ? event.thread
          : await surface.threadFor({
              channel: event.channel,
              message: event.message,
              existingThread: event.thread,
              title: `${choice.character.aiName} · ${text.slice(0, 60)}`,
            });
      if (choice.unknownName) {
        await surface.post({
          thread,
          text: `ℹ️ There is no character "${choice.unknownName}": ${choice.character.aiName} answers instead. \`/tsuka characters\` lists who is here.`,
        });
      }
      const source = turnSource(event);
      const schedule = event.type === 'mention' && event.schedule ? { schedule: event.schedule } : {};
      await enter(thread, {
        surface,
        character: choice.character,
        text,
        user: event.user,
        userName: event.userName,
        channel: event.channel,
        source,
        ...schedule,
      });
    },
    startTurn: (thread, turn) => {
      surfaces.set(turn.surface.platform, turn.surface);
      return enter(thread, turn);
    },
    resume: (thread, from) => resume(thread, from),
    turnDone: async (thread) => {
      await running.get(thread)?.done;
    },
    dropQueues() {
      closing = true;
      // One process: what is queued cannot be answered after shutdown. Replicas leave it for the others.
      if (!coordination.shared) for (const thread of running.keys()) void turns.clear(thread).catch(() => undefined);
      queued.clear();
    },
  };
}
