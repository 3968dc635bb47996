/**
 * Conversations in threads: which character answers, one turn at a time per thread (later
 * messages queue), `stop` and `reset` keywords, the Stop button, and stopping everything at shutdown.
 */
import type { Character } from '../core/data/types.js';
import type { ChatSurface, ThreadRef, UserRef } from './chat-surface.js';
import type { MentionEvent, ThreadMessageEvent } from './inbound-event.js';
import type { CommandDependencies } from './command-dependencies.js';
import type { ApprovalFlow } from './approval-flow.js';
import { takeLeadingCharacter, takePlainMention, takeUnknownName } from './character-selection.js';
import { readChannelDefault } from './settings-store.js';
import { runTurnInThread } from './run-turn.js';
import { RESET_REASON, type ActiveRuns } from './active-runs.js';
import type { ToolRegistry } from '../core/tools/tool.js';
import { findCharacter } from '../core/data/character-lookup.js';

interface QueuedTurn {
  surface: ChatSurface;
  character: Character;
  text: string;
  user: UserRef;
  userName?: string;
  channel: string;
}

interface ThreadState {
  running?: { abort: AbortController; runId?: string; requester: UserRef; done: Promise<void> };
  queue: QueuedTurn[];
}

export interface Conversations {
  handleMessage(event: MentionEvent | ThreadMessageEvent, surface: ChatSurface): Promise<void>;
  /** Drops every queued message (shutdown; running turns are stopped through ActiveRuns). */
  dropQueues(): void;
  activeThreads(): number;
  queuedMessages(): number;
}

const KEYWORDS = new Set(['stop', 'reset']);

/** Turn-specific tools and services (escalation to /goal, /team, /call when workflows exist). */
export type TurnTooling = (turn: { surface: ChatSurface; channel: string; user: UserRef; userName?: string }) => {
  tools: ToolRegistry;
  services?: Record<string, unknown>;
};

export function createConversations(deps: CommandDependencies, approvals: ApprovalFlow, activeRuns: ActiveRuns, tooling?: TurnTooling): Conversations {
  const threads = new Map<ThreadRef, ThreadState>();
  const isAdmin = (user: UserRef) => deps.settings.admins.includes(user);

  async function chooseCharacter(
    event: MentionEvent | ThreadMessageEvent,
    thread: ThreadRef | undefined,
  ): Promise<{ character?: Character; rest: string; explicit: boolean; unknownName?: string }> {
    const plain = event.type === 'mention' && event.plain;
    const parsed = plain ? takePlainMention(deps.roster, event.text) : takeLeadingCharacter(deps.roster, event.text);
    if (parsed.character) return { character: parsed.character, rest: parsed.rest, explicit: true };
    // `@picard hello` with no Picard: someone answers, and the thread says who and why.
    const unknown = plain ? undefined : takeUnknownName(deps.roster, event.text);
    const session = thread ? await deps.sessions.get(thread) : undefined;
    const name = session?.character ?? (await readChannelDefault(deps.store, event.channel)) ?? deps.settings.defaultCharacter;
    return { character: findCharacter(deps.roster, name), rest: unknown?.rest ?? parsed.rest, explicit: false, unknownName: unknown?.name };
  }

  function start(thread: ThreadRef, turn: QueuedTurn): void {
    const state = threads.get(thread) ?? { queue: [] };
    threads.set(thread, state);
    const abort = new AbortController();
    const running: NonNullable<ThreadState['running']> = { abort, requester: turn.user, done: Promise.resolve() };
    state.running = running;
    const extra = tooling?.(turn) ?? { tools: deps.tools };
    running.done = runTurnInThread(deps, approvals, {
      ...turn,
      ...extra,
      thread,
      abort,
      onRunCreated: (runId) => {
        running.runId = runId;
        activeRuns.register({ runId, requester: turn.user, abort, done: running.done, onStop: () => (state.queue.length = 0) });
      },
    })
      .catch(async (error: unknown) => {
        deps.logger.error('turn failed', { thread, error });
        await turn.surface.post({ thread, text: '⚠️ This turn failed on my side; the details are in the bot log.' }).catch(() => undefined);
      })
      .finally(() => {
        state.running = undefined;
        const next = state.queue.shift();
        if (next) start(thread, next);
        else threads.delete(thread);
      });
  }

  async function keyword(word: string, thread: ThreadRef, event: MentionEvent | ThreadMessageEvent, surface: ChatSurface): Promise<void> {
    const state = threads.get(thread);
    if (word === 'stop') {
      if (!state?.running) {
        await surface.postEphemeral({ channel: event.channel, thread, user: event.user, text: 'Nothing is running in this thread.' });
        return;
      }
      if (state.running.requester !== event.user && !isAdmin(event.user)) {
        await surface.postEphemeral({ channel: event.channel, thread, user: event.user, text: 'Only the person who asked or an admin can stop this turn.' });
        return;
      }
      state.queue.length = 0;
      state.running.abort.abort();
      await surface.post({ thread, text: `⏹ Stopped by ${surface.mention(event.user)}.` });
      return;
    }
    if (state?.running && state.running.requester !== event.user && !isAdmin(event.user)) {
      await surface.postEphemeral({
        channel: event.channel,
        thread,
        user: event.user,
        text: 'A turn is running: only the person who asked or an admin can reset now.',
      });
      return;
    }
    // The reason tells the stopped turn not to save its history over the reset.
    state?.running?.abort.abort(RESET_REASON);
    if (state) state.queue.length = 0;
    await deps.sessions.delete(thread);
    await surface.post({ thread, text: `🔄 Conversation reset by ${surface.mention(event.user)}: the next message starts fresh.` });
  }

  return {
    activeThreads: () => [...threads.values()].filter((state) => state.running).length,
    queuedMessages: () => [...threads.values()].reduce((sum, state) => sum + state.queue.length, 0),
    async handleMessage(event, surface) {
      const existingThread = event.type === 'thread-message' ? event.thread : event.thread;
      if (event.type === 'thread-message') {
        // Only threads this bot is part of; anything else in a channel is not for us.
        if (!(await deps.sessions.get(event.thread)) && !threads.has(event.thread)) return;
      }
      const word = event.text
        .trim()
        .toLowerCase()
        .replace(/[.!]+$/, '');
      if (existingThread && KEYWORDS.has(word)) return keyword(word, existingThread, event, surface);
      const choice = await chooseCharacter(event, existingThread);
      if (event.type === 'mention' && event.plain && !choice.explicit) return;
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
      const turn: QueuedTurn = { surface, character: choice.character, text, user: event.user, userName: event.userName, channel: event.channel };
      const state = threads.get(thread);
      if (state?.running) {
        state.queue.push(turn);
        await surface.post({ thread, text: `⏳ Queued (${state.queue.length} waiting): ${choice.character.aiName} will answer after the current turn.` });
        return;
      }
      start(thread, turn);
    },
    dropQueues() {
      for (const state of threads.values()) state.queue.length = 0;
    },
  };
}
