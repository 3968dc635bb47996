/**
 * One workflow run in chat (/call, /team, /goal): the run record, the root message and its thread, the
 * run card with Stop, registration in the active runs, approvals in the thread, and the
 * `WorkflowIo` the core strategies drive — each member turn streamed under its identity, every
 * event stored before it is shown, stats per agent.
 */
import type { AgentEvent } from '../../core/agent/agent-events.js';
import type { AgentRunner } from '../../core/agent/agent-runner.js';
import { createAgentRunner } from '../../core/agent/create-agent-runner.js';
import type { Character } from '../../core/data/types.js';
import { isShutdown, shutdownNotice } from '../runs/active-runs.js';
import { RESUME_ACTION } from '../action-ids.js';

/** Said with the Resume button when a shutdown interrupts a /goal. */
export const RESUME_AFTER_SHUTDOWN = '**Resume** continues it from its first unfinished step (the person who started it or an admin).';
/** Said with the Resume button when a shutdown interrupts a /team. */
export const RESUME_TEAM_AFTER_SHUTDOWN = '**Resume** continues it after its last completed round (the person who started it or an admin).';
import type { PermissionManager } from '../../core/safety/permission-manager.js';
import { createWorkflowPermissions } from './approval-waits.js';
import type { RunKind, RunRecord, RunStatus } from '../../core/store/run-types.js';
import { createBlackboard } from '../../core/workflows/blackboard.js';
import { createMemberInbox } from '../../core/workflows/member-inbox.js';
import { createRunStats, type RunStatsCollector } from '../../core/workflows/run-stats.js';
import { formatStatsTable, type GoalStatsRow } from '../../core/workflows/goal/goal-stats.js';
import { statsChartSvg, statsChartText } from '../charts/stats-chart.js';
import { createSubAgentSpawner } from '../../core/workflows/sub-agent.js';
import type { MemberTurnOutcome, MemberTurnRequest, WorkflowIo } from '../../core/workflows/workflow-io.js';
import type { RecordedDecision, RouteDecision, StatusReport, VoteCast, WorkflowToolService } from '../../core/workflows/workflow-services.js';
import { identityOf } from '../turns/character-selection.js';
import type { ChatSurface, ThreadRef } from '../chat-surface.js';
import type { CommandDependencies } from '../command-dependencies.js';
import type { WorkflowServices } from '../workflow-handlers.js';
import { memoryAccessFor } from '../runs/memory-access-for.js';
import type { MemoryAccess } from '../../core/scopes/memory-access.js';
import type { SlashCommandEvent } from '../inbound-event.js';
import { createTranscriptWriter } from '../runs/record-agent-event.js';
import { createReplyRenderer, type ReplyRenderer } from '../reply/reply-renderer.js';
import { stepMenus } from './step-opinions.js';
import { createStepPlan } from './step-plan.js';
import { createRunCard, type RunCard } from './run-card.js';
import { cardControls } from '../runs/run-controls-recorder.js';
import { watchQueue } from '../runs/queue-note.js';
import { workflowToolRegistry } from './workflow-registry.js';
import { readEffortPin } from '../channels/settings-store.js';
import { extensionServices } from '../runs/extension-services.js';
import { resolveEffort } from '../../core/agent/effort.js';
import type { ReasoningEffort } from '../../core/model/language-model.js';
import { MAX_SPAWN_DEPTH } from '../../core/workflows/workflow-services.js';

/**
 * Coordination tools a member is offered from its first round when its role allows them (the
 * agent loop drops those the role does not list); `spawn_agent` only while the depth allows.
 */
const MEMBER_COORDINATION_TOOLS = ['report_status', 'post_note', 'read_notes', 'send_message'];
const EFFORTS: readonly string[] = ['none', 'low', 'medium', 'xhigh'];

/** The `/tsuka effort` pin as an effort, or undefined when none is set (`auto`). */
export async function currentEffortPin(deps: Pick<CommandDependencies, 'store'>): Promise<ReasoningEffort | undefined> {
  const pin = await readEffortPin(deps.store);
  return pin !== undefined && EFFORTS.includes(pin) ? (pin as ReasoningEffort) : undefined;
}

export interface WorkflowSessionOptions {
  deps: CommandDependencies;
  services: WorkflowServices;
  surface: ChatSurface;
  event: Pick<SlashCommandEvent, 'user' | 'userName' | 'channel' | 'reply' | 'schedule'>;
  kind: Exclude<RunKind, 'ask'>;
  title: string;
  rootText: string;
  members: Character[];
  cardIntervalMs?: number;
  /**
   * False when the caller keeps the run's stats itself (/goal: per step, by agent file name) and
   * hands them to `finish`: the session then counts no turns and posts no table of its own.
   */
  collectStats?: boolean;
  /** Resume: the reopened run (status `running` again) continues in its own thread; no new root, no new record. */
  resume?: RunRecord & { where: { threadId: string } };
  /** Continue in this thread instead of posting a root message (a reopened /call); `rootText` is then posted in it. */
  thread?: ThreadRef;
}

/** How a run ended, as `finish` stores and posts it. */
export interface WorkflowFinish {
  status: RunStatus;
  headline: string;
  summary: string;
  /** Flat numbers the caller kept (see `collectStats`), stored over the session's own in the run record. */
  stats?: Record<string, number>;
  /** Rows for the closing chart when the caller built its own table (/goal); else the session's stats. */
  chartRows?: GoalStatsRow[];
}

export interface WorkflowSession {
  runId: string;
  thread: ThreadRef;
  /** The memory of the channel the run was started in (and who started it). */
  memoryAccess: MemoryAccess;
  io: WorkflowIo;
  permissions: PermissionManager;
  stats: RunStatsCollector;
  abort: AbortController;
  /**
   * The effort of a model call outside member turns (the planner, summaries): the pin, else
   * `caller`, else the configured default.
   */
  effortFor(caller?: ReasoningEffort): ReasoningEffort | undefined;
  /** Who `send_message` may reach from the next turn on (/goal learns its agents from the plan). */
  setMembers(names: readonly string[]): void;
  /** Stores the outcome, posts it with the stats table and chart, settles the card, unregisters the run. */
  finish(outcome: WorkflowFinish): Promise<void>;
  /** A picture in the run's thread where the platform shows one; a failure is logged, never fatal. */
  picture(image: { fileName: string; title: string; svg: string; altText: string }): Promise<void>;
}

type Sinks = {
  status?(report: StatusReport): void;
  route?(decision: RouteDecision): void;
  vote?(vote: VoteCast): void;
  decision?(decision: RecordedDecision): void;
};

/** What a member turn reports through its coordination tools (the last call of each wins). */
function turnReports(request: Pick<MemberTurnRequest, 'onlyTools'>): {
  sinks: Sinks;
  reported(): Pick<MemberTurnOutcome, 'status' | 'route' | 'vote' | 'decision'>;
} {
  const got: Pick<MemberTurnOutcome, 'status' | 'route' | 'vote' | 'decision'> = {};
  const sinks: Sinks = { status: (r) => (got.status = r), route: (r) => (got.route = r), vote: (r) => (got.vote = r) };
  // Only a turn offered `record_decision` (the /call moderator's closing turn) may record a decision.
  if (request.onlyTools?.includes('record_decision')) sinks.decision = (r) => (got.decision = r);
  return { sinks, reported: () => ({ ...got }) };
}

interface TurnRecorder {
  /** Stores the event, then shows it; one turn's events keep their order, parallel turns do not wait on each other. */
  record(agent: string, agentEvent: AgentEvent, show?: (event: AgentEvent) => void): void;
  /** Settles once everything recorded so far is stored and shown. */
  flushed(): Promise<void>;
}

/** Opens a run; undefined (after telling the user) when no model is available. */
export async function openWorkflowSession(options: WorkflowSessionOptions): Promise<WorkflowSession | undefined> {
  const { deps, surface, event } = options;
  await deps.models.refresh?.();
  const current = deps.models.current();
  if (!current) {
    await event.reply(`⚠️ ${deps.models.unavailableMessage()}`);
    return undefined;
  }
  // Built before anything is posted, so a misconfigured registry fails without leaving a dangling run.
  const tools = workflowToolRegistry(deps);
  // Read once per run: a pin set while the run goes on applies from the next run.
  const effortPin = await currentEffortPin(deps);
  const thread = options.resume
    ? options.resume.where.threadId
    : options.thread
      ? (await surface.post({ thread: options.thread, text: options.rootText }), options.thread)
      : (await surface.postRoot({ channel: event.channel, text: options.rootText, threadTitle: options.title.slice(0, 90) })).thread;
  const run =
    options.resume ??
    (await deps.runs.create({
      kind: options.kind,
      title: deps.maskSecrets(options.title),
      startedBy: event.user,
      where: { platform: surface.platform, channelId: event.channel, threadId: thread },
    }));
  const abort = new AbortController();
  let settle: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    settle = resolve;
  });
  let stoppedBy: string | undefined;
  options.services.activeRuns.register({
    runId: run.id,
    requester: event.user,
    abort,
    done,
    onStop: (by) => {
      stoppedBy = by;
    },
  });

  const logger = deps.logger.child({ runId: run.id });
  const memoryAccess = memoryAccessFor(deps.settings, { channel: event.channel, user: event.user });
  const startedAt = Date.now();
  logger.info('run started', { kind: options.kind, platform: surface.platform });
  const card: RunCard = createRunCard({
    surface,
    thread,
    ...cardControls(deps, run.id, thread),
    title: options.title,
    ...(options.cardIntervalMs !== undefined ? { intervalMs: options.cardIntervalMs } : {}),
    queue: watchQueue(current.model, abort.signal, {
      // A scheduled run waits behind people and running workflows; every step it starts does too.
      priority: event.schedule ? 'schedule' : 'workflow',
      requester: event.user,
      ...(event.userName ? { requesterName: event.userName } : {}),
      character: `/${options.kind}`,
      channel: event.channel,
      platform: surface.platform,
    }),
    onError: (error) => logger.warn('run card edit failed', { error }),
  });
  try {
    await card.start();
  } catch (error) {
    // Nothing can be shown in the thread: the run ends here instead of staying registered forever.
    await deps.runs.update(run.id, (stored) => ({ ...stored, status: 'failed', endedAt: Date.now() })).catch(() => undefined);
    settle();
    throw error;
  }

  // /team and /goal steps as a plan where the platform has one (Slack's plan block); a step waits while its approval does.
  // A /call is a conversation, not steps: no plan.
  const plan = createStepPlan({ surface, thread, title: options.title, recipient: event.user, logger, enabled: options.kind !== 'call' });
  // The members' replies now showing: an approval card goes where the reply that asks stands.
  const replying = new Set<{ agent: string; renderer: ReplyRenderer; recorder: TurnRecorder }>();
  const prompt = options.services.approvals.promptFor({
    surface,
    thread,
    requester: event.user,
    aroundCard: async (request, post) => {
      await Promise.all([...replying].map((member) => member.recorder.flushed()));
      const members = [...replying];
      const asking = members.find((member) => member.renderer.hasTool(request.toolCallId)) ?? members.find((member) => member.agent === request.agentName);
      return asking ? asking.renderer.aroundCard(request, post) : post();
    },
  });
  const permissions = createWorkflowPermissions({
    prompt,
    plan,
    logger,
    displayName: (agent) => deps.roster.characters.get(agent)?.aiName ?? agent,
    onLine: (line) => card.approvals(line),
  });
  let activity = '';
  /** Member turns so far: a /goal step's menus name it by its number. */
  let memberTurns = 0;
  const runner: AgentRunner = createAgentRunner({
    model: current.model,
    tools,
    permissions,
    memory: deps.memory,
    logger,
    settings: { ...deps.settings.agent, tier: current.tier },
  });
  const stats = createRunStats();
  const blackboard = createBlackboard();
  const inbox = createMemberInbox();
  let memberNames: readonly string[] = options.members.map((member) => member.name);
  // A turn's tools, and its sub-agents', work in the turn's jail and cwd when it brings them.
  const toolContextFor = (request: Pick<MemberTurnRequest, 'workspace' | 'cwd'>) => ({
    workspace: request.workspace ?? deps.workspace,
    childEnv: deps.childEnv,
    sandbox: deps.sandbox,
    maskSecrets: deps.maskSecrets,
    logger,
    services: {
      memory: deps.memory,
      memoryAccess,
      toolNames: tools.names(),
      ...extensionServices(deps),
      ...(request.cwd ? { cwd: request.cwd } : {}),
    },
  });

  const transcript = createTranscriptWriter(deps.runs, deps.maskSecrets, run.id);
  const createRecorder = (): TurnRecorder => {
    let chain: Promise<void> = Promise.resolve();
    return {
      record(agent, agentEvent, show) {
        chain = chain
          .then(() => transcript.record(agent, agentEvent))
          .then(() => show?.(agentEvent))
          .catch((error: unknown) => logger.warn('could not record or render an event', { error }));
      },
      flushed: () => chain,
    };
  };

  /** A member's turn, its events shown before it ends; meanwhile its approval cards go where its reply stands. */
  const runTurnOf = async (member: { renderer: ReplyRenderer; recorder: TurnRecorder } & { agent: string }, input: Parameters<AgentRunner['runTurn']>[0]) => {
    try {
      const result = await runner.runTurn(input);
      await member.recorder.flushed();
      return result;
    } finally {
      replying.delete(member);
    }
  };

  const serviceFor = (depth: number, sinks: Sinks, turn: { toolContext: ReturnType<typeof toolContextFor>; recorder: TurnRecorder }): WorkflowToolService => ({
    runId: run.id,
    depth,
    blackboard,
    inbox,
    members: memberNames,
    reportStatus: (report) => sinks.status?.(report),
    routeNext: (decision) => sinks.route?.(decision),
    castVote: (vote) => sinks.vote?.(vote),
    ...(sinks.decision ? { recordDecision: sinks.decision } : {}),
    spawn: createSubAgentSpawner({
      runner,
      roster: deps.roster,
      runId: run.id,
      requesterId: event.user,
      memoryScope: memoryAccess.scope,
      toolContext: turn.toolContext,
      serviceFor: (nextDepth) => serviceFor(nextDepth, {}, turn),
      ...(effortPin ? { effortPin } : {}),
      onEvent: (agent, agentEvent) => turn.recorder.record(agent, agentEvent),
      // The sub-agent's text, reasoning and tools are already in the transcript through `onEvent`.
      onReport: async () => undefined,
    }),
  });

  const io: WorkflowIo = {
    signal: abort.signal,
    activity: (text) => {
      activity = text;
      card.update(text);
    },
    async announce(text) {
      await deps.runs.appendEvent(run.id, { type: 'note', text: deps.maskSecrets(text) });
      await surface.post({ thread, text: deps.maskSecrets(text) });
    },
    async runMember(request) {
      const { character } = request;
      const waiting = inbox.take(character.name);
      const prompt =
        waiting.length > 0
          ? `Messages for you from the team:\n${waiting.map((message) => `- ${message.from}: ${message.content}`).join('\n')}\n\n${request.prompt}`
          : request.prompt;
      const renderer = createReplyRenderer({
        surface,
        thread,
        identity: identityOf(character, deps.settings.publicUrl),
        recipient: event.user,
        onError: (error) => logger.warn('reply edit failed', { error }),
      });
      await renderer.start();
      const step = plan.started(character, activity.includes(character.aiName) ? activity : character.aiName);
      const toolContext = toolContextFor(request);
      const recorder = createRecorder();
      const member = { agent: character.name, renderer, recorder };
      replying.add(member);
      const reports = turnReports(request);
      const workflow = serviceFor(0, reports.sinks, { toolContext, recorder });
      const startedAt = Date.now();
      const result = await runTurnOf(member, {
        character,
        roster: deps.roster,
        history: [],
        userMessage: prompt,
        runId: run.id,
        requesterId: event.user,
        loadedTools: [...MEMBER_COORDINATION_TOOLS, ...(workflow.depth < MAX_SPAWN_DEPTH ? ['spawn_agent'] : []), ...(request.loadedTools ?? [])],
        effort: { ...(effortPin ? { pin: effortPin } : {}), ...(request.effort ? { caller: request.effort } : {}) },
        toolContext: { ...toolContext, services: { ...toolContext.services, workflow } },
        memoryScope: memoryAccess.scope,
        signal: abort.signal,
        allowTools: request.allowTools,
        ...(request.onlyTools ? { onlyTools: request.onlyTools } : {}),
        ...(request.extraSystemPrompt ? { extraSystemPrompt: request.extraSystemPrompt } : {}),
        onEvent: (agentEvent) => recorder.record(character.name, agentEvent, (shown) => renderer.handle(shown)),
      });
      const durationMs = Date.now() - startedAt;
      if (options.collectStats !== false) stats.add(character.aiName, result.usage, durationMs);
      const outcome: MemberTurnOutcome = {
        character,
        text: result.text,
        finishReason: result.finishReason,
        usage: result.usage,
        durationMs,
        ...(result.error ? { error: result.error } : {}),
        ...reports.reported(),
      };
      plan.finished(step, outcome);
      const trailer = [...(request.trailer?.(outcome) ?? [])];
      if (result.finishReason === 'aborted') trailer.push('⏹ Stopped.');
      if (result.finishReason === 'error') trailer.push(`⚠️ ${result.error?.message ?? 'The model failed.'}`);
      if (trailer.length > 0) await deps.runs.appendEvent(run.id, { type: 'note', text: deps.maskSecrets(`${character.name}: ${trailer.join(' | ')}`) });
      // A /goal step offers a second opinion and a re-run, as a conversation's reply does (issue 28).
      const menus =
        options.kind === 'goal' && result.finishReason !== 'aborted'
          ? await stepMenus(deps, {
              runId: run.id,
              number: ++memberTurns,
              surface,
              channel: event.channel,
              thread,
              character,
              messages: result.history,
              requester: event.userName ?? event.user,
            })
          : [];
      await renderer.finish(trailer.length > 0 ? `\n${trailer.join('\n')}` : undefined, menus);
      return outcome;
    },
  };

  async function picture(image: { fileName: string; title: string; svg: string; altText: string }): Promise<void> {
    if (!surface.uploadImage) return;
    await surface
      .uploadImage({ channel: surface.channelOf(thread), thread, ...image })
      .catch((error: unknown) => logger.warn('could not post a picture', { error, fileName: image.fileName }));
  }

  return {
    runId: run.id,
    thread,
    memoryAccess,
    io,
    picture,
    permissions,
    stats,
    abort,
    effortFor: (caller) => resolveEffort({ pin: effortPin, caller, configDefault: deps.settings.agent.defaultEffort }),
    setMembers(names) {
      memberNames = [...names];
    },
    async finish(outcome) {
      try {
        await plan.finish();
        // Shutdown is an interruption (said again after the restart), not a person's Stop.
        const status: RunStatus = isShutdown(abort.signal) ? 'interrupted' : abort.signal.aborted ? 'stopped' : outcome.status;
        const headline = isShutdown(abort.signal)
          ? shutdownNotice(deps.coordination?.shared === true)
          : abort.signal.aborted
            ? `⏹ Stopped by ${stoppedBy ? surface.mention(stoppedBy) : 'request'}.`
            : outcome.headline;
        await deps.runs.update(run.id, (stored) => ({
          ...stored,
          status,
          endedAt: Date.now(),
          stats: { ...stats.totals(), ...stats.perAgent(), outcome: outcome.summary, ...outcome.stats },
        }));
        await deps.runs.appendEvent(run.id, { type: 'status', status, note: deps.maskSecrets(outcome.summary) });
        const rows =
          outcome.chartRows ??
          stats.all().map(({ agent, outputTokens, peakContextTokens, totalTokens, durationMs, modelTimeMs }) => ({
            agent,
            outputTokens,
            peakContextTokens,
            totalTokens,
            durationMs,
            modelTimeMs,
          }));
        // /goal writes its own table (planner and summary rows, wall-clock total); the others get the same columns here.
        const table = !outcome.chartRows && rows.length > 0 ? `\n${formatStatsTable(rows)}` : '';
        await card.finish(status === 'stopped' ? '⏹ stopped' : status === 'completed' ? '✅ finished' : `✖ ${status}`);
        // A /goal (its plan and finished steps) or /team (its completed rounds) cut off by a shutdown: Resume, clicked on the next process, continues it.
        const resumable = status === 'interrupted' && (options.kind === 'goal' || options.kind === 'team');
        const resumeText = options.kind === 'team' ? RESUME_TEAM_AFTER_SHUTDOWN : RESUME_AFTER_SHUTDOWN;
        await surface.post({
          thread,
          text: deps.maskSecrets(`${headline}${resumable ? `\n${resumeText}` : ''}\n${outcome.summary}${table}`),
          ...(resumable ? { buttons: [{ actionId: RESUME_ACTION, label: 'Resume', style: 'primary' as const, value: run.id }] } : {}),
        });
        if (rows.length > 0 && status !== 'interrupted') {
          const chart = { title: `${options.title} — tokens and time per agent`, contextWindow: current.model.contextWindow };
          await picture({ fileName: `${options.kind}-stats.svg`, title: chart.title, svg: statsChartSvg(rows, chart), altText: statsChartText(rows, chart) });
        }
        logger.info('run ended', { kind: options.kind, outcome: status, durationMs: Date.now() - startedAt, ...stats.totals(), ...outcome.stats });
      } finally {
        permissions.clearRun(run.id);
        settle();
      }
    },
  };
}
