/**
 * The command layer: one entry point for every inbound event from every adapter, behind the
 * middleware pipeline (errors, bots, allowlist, de-duplication, rate limit).
 */
import type { ChatSurface } from './chat-surface.js';
import type { ButtonActionEvent, InboundEvent } from './inbound-event.js';
import type { WorkflowHandlers, WorkflowServices } from './workflow-handlers.js';
import type { CommandDependencies } from './command-dependencies.js';
import { compose, type Middleware } from './middleware/compose.js';
import { errorReply } from './middleware/error-reply.js';
import { ignoreBots } from './middleware/ignore-bots.js';
import { channelAllowlist } from './middleware/channel-allowlist.js';
import { deduplicate } from './middleware/deduplicate.js';
import { userRateLimit } from './middleware/user-rate-limit.js';
import { createApprovalFlow, type ApprovalFlow } from './approvals/approval-flow.js';
import { createConversations, type Conversations } from './turns/conversations.js';
import { handleTsukaCommand } from './tsuka/tsuka-command.js';
import { createActiveRuns, type ActiveRuns } from './runs/active-runs.js';
import { buttonOwner } from './button-routes.js';
import { stopThreadRuns } from './runs/session-stop.js';
import { createPlanGates } from './workflows/goal/plan-gate.js';
import { handleResumeButton } from './runs/resume-button.js';
import { handleSecondOpinion } from './second-opinion/second-opinion.js';
import { createMaskingSurface } from './masking-surface.js';
import { createChannelSettings } from './channels/channel-settings.js';
import { escalationTooling } from './workflows/escalation-tooling.js';
import { createLocalCoordination } from '../core/coordination/local-coordination.js';

export interface CommandLayer {
  handle(event: InboundEvent, surface: ChatSurface): Promise<void>;
  conversations: Conversations;
  approvals: ApprovalFlow;
  activeRuns: ActiveRuns;
  /** Shutdown: takes no new events, stops every running turn and waits for them to end. */
  stopAll(): Promise<void>;
}

/** A button whose run is gone (finished, or left by a process that restarted): say so, and take the buttons off its message. */
async function answerStaleButton(event: ButtonActionEvent, text: string, logger: CommandDependencies['logger']): Promise<void> {
  await event.replyEphemeral(text);
  await event.clearButtons?.().catch((error: unknown) => logger.warn('could not remove stale buttons', { message: event.message, error }));
}

export function createCommandLayer(given: CommandDependencies, createWorkflows?: (services: WorkflowServices) => WorkflowHandlers): CommandLayer {
  // One coordination for the whole layer: the engine's (Redis with replicas), else this process's own.
  const withCoordination: CommandDependencies = given.coordination ? given : { ...given, coordination: createLocalCoordination() };
  const channelSettings = withCoordination.channelSettings ?? createChannelSettings(withCoordination);
  const deps: CommandDependencies = { ...withCoordination, channelSettings };
  const approvals = createApprovalFlow({
    approvals: deps.approvals,
    runs: deps.runs,
    admins: deps.settings.admins,
    timeoutMs: deps.settings.approvalTimeoutMs,
    logger: deps.logger,
    now: deps.now,
    coordination: deps.coordination,
    dangerousApprovers: channelSettings.dangerousApprovers,
    audit: deps.audit,
    ...(deps.policy ? { policy: deps.policy.current } : {}),
  });
  const activeRuns = createActiveRuns(deps.settings.admins, { coordination: deps.coordination, runs: deps.runs, logger: deps.logger });
  let workflows: WorkflowHandlers = {};
  const conversations = createConversations(deps, approvals, activeRuns, (turn) => escalationTooling(deps, workflows, turn));
  const planGates = createPlanGates({ store: deps.store, admins: deps.settings.admins, coordination: deps.coordination, logger: deps.logger });
  workflows = createWorkflows?.({ approvals, activeRuns, planGates }) ?? {};
  const startedAt = Date.now();

  const route = async (event: InboundEvent, surface: ChatSurface): Promise<void> => {
    switch (event.type) {
      case 'mention':
        return conversations.handleMessage(event, surface);
      case 'thread-message':
        // A reply with a changed plan, while a /goal's plan waits for Run plan, edits it.
        if (await planGates.handleReply(event)) return;
        // A DECISION: reply to a /call verdict that stated none (issue 35).
        if (await workflows.reply?.(event, surface)) return;
        return conversations.handleMessage(event, surface);
      case 'button-action': {
        // Straight to the one handler its action id names (button-routes.ts); each still checks the click's value itself.
        const owner = buttonOwner(event.actionId);
        if (owner === 'approvals' && (await approvals.handleButton(event, surface))) return;
        if (owner === 'plan' && (await planGates.handleButton(event))) return;
        if (owner === 'resume') return handleResumeButton(event, surface, { deps, conversations, workflows });
        if (owner === 'second-opinion' && (await handleSecondOpinion(event, surface, { deps, conversations }))) return;
        if (owner === 'session-stop') return stopThreadRuns(event, activeRuns);
        if (owner === 'stop') {
          const outcome = await activeRuns.stop(event.value, event.user);
          if (outcome === 'forbidden') return event.replyEphemeral('Only the person who started this run or an admin can stop it.');
          if (outcome === 'unknown') return answerStaleButton(event, 'This run has ended.', deps.logger);
          return;
        }
        if (owner === 'workflow' && (await workflows.button?.(event, surface))) return;
        return answerStaleButton(event, 'This button is no longer active.', deps.logger);
      }
      case 'slash-command': {
        if (event.command === 'tsuka') return handleTsukaCommand(event, surface, { deps, conversations, activeRuns, startedAt });
        const workflow = workflows[event.command];
        if (workflow) return workflow(event, surface);
        return event.reply(`/${event.command} is not available yet in this version of TSUKA; mention a character instead (e.g. @TSUKA geordi …).`);
      }
    }
  };

  const middlewares: Middleware[] = [
    errorReply,
    ignoreBots,
    channelAllowlist(deps.settings.channels),
    deduplicate(deps.dedupe),
    userRateLimit(deps.settings.userEventsPerMinute, deps.coordination),
  ];
  const pipeline = compose(middlewares, (event, context) => route(event, context.surface));

  let closing = false;
  const masked = new WeakMap<ChatSurface, ChatSurface>();
  const maskedSurface = (surface: ChatSurface): ChatSurface => {
    let wrapped = masked.get(surface);
    if (!wrapped) masked.set(surface, (wrapped = createMaskingSurface(surface, deps.maskSecrets)));
    return wrapped;
  };
  const maskedEvent = (event: InboundEvent): InboundEvent => {
    if (event.type === 'slash-command') return { ...event, reply: (text) => event.reply(deps.maskSecrets(text)) };
    if (event.type === 'button-action') return { ...event, replyEphemeral: (text) => event.replyEphemeral(deps.maskSecrets(text)) };
    return event;
  };

  return {
    conversations,
    approvals,
    activeRuns,
    handle: async (event, surface) => {
      if (closing) {
        // Shutting down: nothing new starts (it would be cut off); commands are told why.
        deps.logger.info('event dropped during shutdown', { eventId: event.id, type: event.type });
        if (event.type === 'slash-command') await event.reply('TSUKA is restarting; try again in a moment.').catch(() => undefined);
        return;
      }
      return pipeline(maskedEvent(event), { surface: maskedSurface(surface), logger: deps.logger });
    },
    stopAll: async () => {
      closing = true;
      conversations.dropQueues();
      await activeRuns.stopAll();
      // A stopped turn does not wait for its approval message to be edited: shutdown does.
      await approvals.drain();
    },
  };
}
