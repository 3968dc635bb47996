/**
 * A /team or /goal run's steps as a plan in its thread, where the platform shows plans natively
 * (Slack: one streamed message, `task_display_mode: "plan"`, a task card per member turn). Each
 * step is a task: running while its member works, waiting while one of its tool calls waits for
 * an approval, complete or failed when the turn ends. Elsewhere nothing is posted: the run card
 * and the members' messages say the same.
 */
import type { ChatSurface, ReplyStream, TaskStatus, ThreadRef, UserRef } from '../chat-surface.js';
import type { MemberTurnOutcome } from '../../core/workflows/workflow-io.js';
import type { Logger } from '../../core/logger.js';

export interface StepPlan {
  /** A member's turn starts: a new task titled `title`; returns its id. */
  started(character: { name: string; aiName: string }, title: string): string | undefined;
  /** A tool call of `agent` waits for an approval (true) or goes on (false). */
  waiting(agent: string, waiting: boolean): void;
  finished(id: string | undefined, outcome: MemberTurnOutcome): void;
  /** Ends the plan's message (every step shown as it last stood). */
  finish(): Promise<void>;
}

export function createStepPlan(options: {
  surface: ChatSurface;
  thread: ThreadRef;
  title: string;
  recipient: UserRef;
  logger: Logger;
  /** False: no plan at all (a /call). */
  enabled?: boolean;
}): StepPlan {
  let plan: ReplyStream | undefined;
  let opened = false;
  let count = 0;
  const open = new Map<string, { title: string; agents: string[] }>();

  const show = (id: string, status: TaskStatus, extra: { output?: string; details?: string } = {}) => {
    const step = open.get(id);
    if (!plan?.task || !step) return;
    plan.task({ id, title: step.title, status, ...extra });
  };

  return {
    started(character, title) {
      if (!opened && options.enabled !== false) {
        opened = true;
        plan = options.surface.startPlan?.({ thread: options.thread, title: options.title, recipient: options.recipient });
      }
      if (!plan?.tasks) return undefined;
      const id = `step-${++count}`;
      open.set(id, { title: title || character.aiName, agents: [character.name, character.aiName] });
      show(id, 'in_progress');
      return id;
    },
    waiting(agent, waiting) {
      for (const [id, step] of open)
        if (step.agents.includes(agent)) show(id, waiting ? 'pending' : 'in_progress', waiting ? { details: 'waiting for an approval' } : {});
    },
    finished(id, outcome) {
      if (!id) return;
      const failed = (outcome.finishReason !== 'stop' && outcome.finishReason !== 'max-rounds') || outcome.status?.status === 'FAILED';
      const output = outcome.status?.summary ?? (outcome.finishReason === 'aborted' ? 'stopped' : (outcome.error?.message ?? outcome.finishReason));
      show(id, failed ? 'error' : 'complete', { output });
      open.delete(id);
    },
    async finish() {
      if (!plan) return;
      const ending = plan;
      plan = undefined;
      await ending.stop({ text: '' }).catch((error: unknown) => options.logger.warn('the run plan could not be ended', { error }));
    },
  };
}
