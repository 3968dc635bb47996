/**
 * Who waits for which approval, on the run card (issue 40). A run asks one question at a time, so
 * that cards arrive in the order the calls were made: a parallel /goal step whose call comes while
 * another step's card is open waits silently behind it. The card names both — the call whose card
 * is open, and each call waiting behind it — and the line goes when nothing waits.
 */
import type { Logger } from '../../core/logger.js';
import { createPermissionManager, type PermissionManager, type PermissionWait } from '../../core/safety/permission-manager.js';
import type { PermissionPrompt } from '../../core/safety/permission-port.js';
import type { StepPlan } from './step-plan.js';

interface OpenCall {
  agent: string;
  tool: string;
  state: 'queued' | 'asking';
}

/** The line for the run card, or undefined when no call waits for a person. */
export function approvalWaitsLine(calls: readonly OpenCall[]): string | undefined {
  const asking = calls.filter((call) => call.state === 'asking');
  const queued = calls.filter((call) => call.state === 'queued');
  if (asking.length === 0 && queued.length === 0) return undefined;
  const parts = [
    ...asking.map((call) => `${call.agent}'s \`${call.tool}\` waits for a decision (its card is in the thread)`),
    ...queued.map((call) => `${call.agent}'s \`${call.tool}\` waits behind it (one card at a time)`),
  ];
  return `⏳ ${parts.join(' · ')}`;
}

/**
 * The permission manager of a workflow run: the plan shows a step waiting while its card is open,
 * and `onLine` gets the run card's approvals line each time a call starts, stops or moves up.
 */
export function createWorkflowPermissions(options: {
  prompt: PermissionPrompt;
  plan: StepPlan;
  logger: Logger;
  /** The character's name as chat shows it (`geordi` → `Geordi`). */
  displayName: (agent: string) => string;
  onLine: (line: string | undefined) => void;
}): PermissionManager {
  const open = new Map<string, OpenCall>();
  const onWait = ({ request, state }: PermissionWait): void => {
    if (state === 'done') open.delete(request.id);
    else open.set(request.id, { agent: options.displayName(request.agentName), tool: request.toolName, state });
    options.onLine(approvalWaitsLine([...open.values()]));
  };
  return createPermissionManager({
    prompt: {
      async ask(request, signal) {
        options.plan.waiting(request.agentName, true);
        try {
          return await options.prompt.ask(request, signal);
        } finally {
          options.plan.waiting(request.agentName, false);
        }
      },
    },
    logger: options.logger,
    onWait,
  });
}
