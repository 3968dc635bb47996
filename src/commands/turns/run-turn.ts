/**
 * One character's turn in a thread: a run record, the streamed reply, approvals in the thread,
 * the session saved afterwards. Every tool event is stored before it is shown.
 */
import { admitTurn } from './turn-admission.js';
import { createAgentRunner } from '../../core/agent/create-agent-runner.js';
import { createPermissionManager } from '../../core/safety/permission-manager.js';
import type { AgentEvent } from '../../core/agent/agent-events.js';
import type { ToolRegistry } from '../../core/tools/tool.js';
import type { Character } from '../../core/data/types.js';
import type { ChatMessage, ReasoningEffort } from '../../core/model/language-model.js';
import type { ChatSurface, ThreadRef, UserRef } from '../chat-surface.js';
import type { CommandDependencies } from '../command-dependencies.js';
import type { ApprovalFlow } from '../approvals/approval-flow.js';
import { createReplyRenderer } from '../reply/reply-renderer.js';
import { gatherTurnContext, type TurnSource } from '../context/turn-context.js';
import { firstMessage, saveSession, trackUntrusted } from './turn-start.js';
import { identityOf } from './character-selection.js';
import { readEffortPin } from '../channels/settings-store.js';
import { createTranscriptWriter } from '../runs/record-agent-event.js';
import { isShutdown, RESET_REASON, shutdownNotice } from '../runs/active-runs.js';
import { waitingNote, watchQueue } from '../runs/queue-note.js';
import { TsukaError } from '../../core/errors.js';
import { runningControls } from '../runs/run-controls-recorder.js';
import { createConversationSpawner } from './conversation-spawner.js';
import { extensionServices } from '../runs/extension-services.js';
import { memoryAccessFor } from '../runs/memory-access-for.js';
import { replyMenus } from '../second-opinion/second-opinion-menu.js';
import { CUT_ANSWER_NOTE } from '../reply/answer-notes.js';

const QUEUE_WATCH_INTERVAL_MS = 500;
/** Calibrated chars-per-token per model id, shared by every turn of this process. */
const calibration = new Map<string, number>();

export interface TurnRequest {
  surface: ChatSurface;
  thread: ThreadRef;
  channel: string;
  character: Character;
  text: string;
  user: UserRef;
  userName?: string;
  abort: AbortController;
  /** Who stopped the turn with the Stop button or `/tsuka stop`, once someone did. */
  stoppedBy?: () => UserRef | undefined;
  onRunCreated(runId: string): void;
  /** The tools of this turn (plain tools, plus escalation when workflows exist). */
  tools: ToolRegistry;
  /** Extra tool services (the escalation service behind request_goal|team|call). */
  services?: Record<string, unknown>;
  /** Where the message came from: the thread to read on a tag-in, the files it brought. */
  source?: TurnSource;
  /** Set when a schedule started this turn (its id): it waits behind people and workflows for the model. */
  schedule?: string;
  /** A Re-run (issue 28): serialisable, so a queued one carries it to another replica. */
  rerun?: TurnRerun;
}

/** How a Re-run differs from a new message: the model server it asked for, and the history it starts from. */
export interface TurnRerun {
  /** The server's URL (one of `models.serverUrls()`); absent: the usual queue over every server. */
  server?: string;
  /** The thread's history as the re-run run saw it: its first `historyLength` messages. */
  historyLength?: number;
}

export async function runTurnInThread(deps: CommandDependencies, approvals: ApprovalFlow, request: TurnRequest): Promise<void> {
  const { surface, thread, character } = request;
  await admitTurn();
  await deps.models.refresh?.();
  const server = request.rerun?.server;
  const current = server ? deps.models.currentOn?.(server) : deps.models.current();
  if (!current) {
    // Infrastructure speaks as TSUKA, never in a character's voice.
    await surface.post({
      thread,
      text: `⚠️ ${server ? 'The model server picked for this re-run does not answer now; try another.' : deps.models.unavailableMessage()}`,
    });
    return;
  }
  const session = await deps.sessions.get(thread);
  // A Re-run starts from the history its run saw; its messages still go after everything said since.
  const given = request.rerun?.historyLength === undefined ? (session?.history ?? []) : (session?.history ?? []).slice(0, request.rerun.historyLength);
  const run = await deps.runs.create({
    kind: 'ask',
    title: deps.maskSecrets(request.text).slice(0, 80) || character.aiName,
    startedBy: request.user,
    where: { platform: surface.platform, channelId: request.channel, threadId: thread },
  });
  request.onRunCreated(run.id);
  deps.logger.info('run started', { runId: run.id, kind: 'ask', character: character.name, platform: surface.platform });
  const startedAt = Date.now();
  await deps.runs.appendEvent(run.id, { type: 'message', agent: request.userName ?? request.user, text: deps.maskSecrets(request.text) });

  const renderer = createReplyRenderer({
    surface,
    thread,
    identity: identityOf(character, deps.settings.publicUrl),
    recipient: request.user,
    ...runningControls(deps, run.id, thread, request.text),
    onError: (error) => deps.logger.warn('reply edit failed', { runId: run.id, error }),
  });
  let queueWatch: NodeJS.Timeout | undefined;
  try {
    await renderer.start();

    let chain: Promise<void> = Promise.resolve();
    // An approval card goes where the reply stands: after the events shown so far, before the call's result.
    const aroundCard = async (asked: { toolCallId: string; toolName: string }, post: () => Promise<string>) => {
      await chain;
      return renderer.aroundCard(asked, post);
    };
    const permissions = createPermissionManager({ prompt: approvals.promptFor({ surface, thread, requester: request.user, aroundCard }), logger: deps.logger });
    const runner = createAgentRunner({
      model: current.model,
      tools: request.tools,
      permissions,
      memory: deps.memory,
      logger: deps.logger,
      // The chars-per-token ratio learnt in earlier turns with this model carries over.
      settings: {
        ...deps.settings.agent,
        tier: current.tier,
        ...(current.textToolCalls === undefined ? {} : { textToolCallsExpected: current.textToolCalls }),
        ...(calibration.has(current.model.modelId) ? { initialCharsPerToken: calibration.get(current.model.modelId) } : {}),
      },
    });
    const pin = (await readEffortPin(deps.store)) ?? (session?.effortPin && session.effortPin !== 'auto' ? session.effortPin : undefined);

    // While the model queue (one generation at a time on a local GPU) holds this turn, say where it stands.
    const queue = watchQueue(current.model, request.abort.signal, {
      priority: request.schedule ? 'schedule' : 'person',
      requester: request.user,
      ...(request.userName ? { requesterName: request.userName } : {}),
      character: character.aiName,
      channel: request.channel,
      platform: surface.platform,
    });
    queueWatch = setInterval(() => {
      const estimate = queue();
      renderer.setWaiting(estimate ? waitingNote(estimate) : undefined);
    }, QUEUE_WATCH_INTERVAL_MS);
    const transcript = createTranscriptWriter(deps.runs, deps.maskSecrets, run.id);
    const record = (agent: string, event: AgentEvent, show?: (event: AgentEvent) => unknown) => {
      chain = chain
        .then(() => transcript.record(agent, event))
        .then(async () => {
          await show?.(event);
        })
        .catch((error: unknown) => deps.logger.warn('could not record or render an event', { runId: run.id, error }));
    };
    const onEvent = (event: AgentEvent) => record(character.name, event, (shown) => renderer.handle(shown));
    // What is said in a channel stays in it: the turn reads and saves the channel's (or DM's) memory.
    const memoryAccess = memoryAccessFor(deps.settings, { channel: request.channel, user: request.user });
    // Untrusted text the turn has read (issue 41), shared with its sub-agents and kept in the session.
    const untrusted = trackUntrusted(session, request.user);
    const toolContext = {
      untrusted,
      workspace: deps.workspace,
      childEnv: deps.childEnv,
      sandbox: deps.sandbox,
      maskSecrets: deps.maskSecrets,
      logger: deps.logger.child({ runId: run.id }),
      services: { memory: deps.memory, memoryAccess, toolNames: request.tools.names(), ...extensionServices(deps), ...request.services },
    };
    const spawnAgent = createConversationSpawner({
      deps,
      runner,
      runId: run.id,
      requesterId: request.user,
      memoryScope: memoryAccess.scope,
      toolContext,
      onEvent: (agent, event) => record(agent, event),
      ...(pin ? { effortPin: pin as ReasoningEffort } : {}),
    });
    const context = await gatherTurnContext(deps, {
      surface,
      thread,
      source: request.source,
      tier: current.tier,
      modelId: current.model.modelId,
      session,
      signal: request.abort.signal,
      requester: request.user,
    });
    const sameCharacter = session?.character === character.name;
    const result = await runner.runTurn({
      character,
      roster: deps.roster,
      history: given,
      userMessage: await firstMessage(deps, { runId: run.id, context, session, text: request.text, requester: request.user, untrusted }),
      userName: request.userName,
      images: context.images,
      // A stored role the roster no longer gives this character is dropped, not an error.
      activeRole: sameCharacter && session?.activeRole && character.roles.includes(session.activeRole) ? session.activeRole : undefined,
      runId: run.id,
      requesterId: request.user,
      toolContext: { ...toolContext, services: { ...toolContext.services, spawnAgent } },
      memoryScope: memoryAccess.scope,
      effort: { pin: pin as ReasoningEffort | undefined },
      signal: request.abort.signal,
      onEvent,
    });
    clearInterval(queueWatch);
    calibration.set(current.model.modelId, runner.charsPerToken);
    await chain;
    permissions.clearRun(run.id);

    // A reset during the turn wins: its history is not saved back.
    if (request.abort.signal.reason !== RESET_REASON) {
      await saveSession(deps.sessions, thread, {
        ...(session ? { session } : {}),
        given,
        result,
        character: character.name,
        requester: request.user,
        untrusted,
        mask: (message) => maskMessage(message, deps.maskSecrets),
      });
    }
    if (result.finishReason === 'stop' && result.text.trim() === '') {
      deps.logger.warn('the model returned an empty answer', { runId: run.id, model: current.model.modelId });
      await deps.runs.appendEvent(run.id, { type: 'note', text: 'The model returned an empty answer.' });
    }
    const shutdown = isShutdown(request.abort.signal);
    const status = shutdown
      ? 'interrupted'
      : result.finishReason === 'stop' || result.finishReason === 'max-rounds'
        ? 'completed'
        : result.finishReason === 'aborted'
          ? 'stopped'
          : 'failed';
    // Who answered and where this turn starts in the thread's history: what a Re-run or a second opinion reads back.
    const stats = { ...result.usage, finishReason: result.finishReason, character: character.name, historyFrom: session?.history.length ?? 0 };
    await deps.runs.update(run.id, (record) => ({ ...record, status, endedAt: Date.now(), stats }));
    await deps.runs.appendEvent(run.id, { type: 'status', status });

    const trailer = shutdown
      ? shutdownNotice(deps.coordination?.shared === true)
      : result.finishReason === 'error'
        ? `⚠️ ${result.error?.message ?? 'The model failed.'}`
        : result.finishReason === 'aborted'
          ? stoppedLine(surface, request.stoppedBy?.())
          : result.finishReason === 'length'
            ? `⚠️ ${CUT_ANSWER_NOTE}`
            : undefined;
    // A finished reply offers a second opinion and a re-run; an interrupted one has its Resume button instead.
    await renderer.finish(trailer, shutdown ? [] : await replyMenus(deps, { runId: run.id, character, channel: request.channel, surface }));
    deps.logger.info('run ended', {
      runId: run.id,
      kind: 'ask',
      character: character.name,
      outcome: status,
      finishReason: result.finishReason,
      durationMs: Date.now() - startedAt,
      ...result.usage,
    });
  } catch (error) {
    // Whatever failed after the placeholder, the thread must not keep a Stop button and the run must not stay running.
    clearInterval(queueWatch);
    deps.logger.error('turn failed', { runId: run.id, error });
    const note = (what: string) => (failure: unknown) => deps.logger.warn(what, { runId: run.id, error: failure });
    await deps.runs.update(run.id, (record) => ({ ...record, status: 'failed', endedAt: Date.now() })).catch(note('could not mark the run failed'));
    // A platform that kept failing (ChatDeliveryError) or another typed failure is named; anything else stays generic.
    const what = error instanceof TsukaError ? error.message : 'This turn failed on my side; the details are in the bot log.';
    await deps.runs.appendEvent(run.id, { type: 'status', status: 'failed', note: what }).catch(note('could not record the failure'));
    await renderer.finish(`⚠️ ${what}`).catch(async (failure: unknown) => {
      note('could not finish the reply')(failure);
      // The reply message itself cannot be edited (e.g. chat.update keeps failing): say it in a new message.
      await surface.post({ thread, text: `⚠️ ${what}` }).catch(note('could not tell the thread what failed'));
    });
  }
}

/** The reply's last line when a turn was stopped: who stopped it, when a person did by button or command. */
const stoppedLine = (surface: ChatSurface, by: UserRef | undefined): string => (by ? `⏹ Stopped by ${surface.mention(by)}.` : '⏹ Stopped.');

function maskMessage(message: ChatMessage, mask: (text: string) => string): ChatMessage {
  // Images are seen once, never stored: the session keeps a line saying they were there.
  if (message.role === 'user' && message.images) {
    const { images, ...rest } = message;
    return { ...rest, content: `${mask(rest.content)}\n[${images.length} image${images.length === 1 ? '' : 's'} attached, seen in this turn only]` };
  }
  if (message.role === 'assistant' && message.toolCalls) {
    return { ...message, content: mask(message.content), toolCalls: message.toolCalls.map((call) => ({ ...call, arguments: mask(call.arguments) })) };
  }
  return { ...message, content: mask(message.content) };
}
