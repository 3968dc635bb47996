/**
 * Plans waiting for agreement (issue 25): the Run plan / Edit / Cancel buttons of a /goal's plan
 * card and the thread replies that edit it reach the run that waits — in this process, or through
 * the coordination on the replica running it. Only the requester or an admin decides. A waiting
 * plan is recorded in the store (thread → run), so any replica can tell a plan edit from chatter.
 */
import type { Coordination } from '../../../core/coordination/coordination.js';
import type { Logger } from '../../../core/logger.js';
import type { Store } from '../../../core/store/open-store.js';
import { CANCEL_PLAN_ACTION, EDIT_PLAN_ACTION, RUN_PLAN_ACTION } from '../../action-ids.js';
import type { ThreadRef, UserRef } from '../../chat-surface.js';
import type { ButtonActionEvent, ThreadMessageEvent } from '../../inbound-event.js';

export type PlanDecision = { kind: 'run' | 'cancel'; by: UserRef } | { kind: 'edit'; by: UserRef; text: string };

export interface PlanWait {
  runId: string;
  thread: ThreadRef;
  requester: UserRef;
  onDecision(decision: PlanDecision): void;
}

export interface PlanGates {
  /** Marks the run's plan as waiting; decisions go to `onDecision` until the returned close is called. */
  open(wait: PlanWait): Promise<() => Promise<void>>;
  /** A plan card's button; false when it is not one. */
  handleButton(event: ButtonActionEvent): Promise<boolean>;
  /** A reply in a thread whose plan waits, from the requester or an admin: taken as the changed plan (true). */
  handleReply(event: ThreadMessageEvent): Promise<boolean>;
}

export const EDIT_PLAN_HELP =
  'To change the plan, reply in this thread with the whole plan as it should run: one `AGENT: @name — task` line per step, `PARALLEL:` … `END PARALLEL` around steps that run at once. Then press **Run plan**.';

const TOPIC = 'goal-plan';
const PLAN_ACTIONS = new Set([RUN_PLAN_ACTION, EDIT_PLAN_ACTION, CANCEL_PLAN_ACTION]);

interface WaitingRecord {
  runId: string;
  thread: ThreadRef;
  requester: UserRef;
}

export function createPlanGates(options: { store: Store; admins: readonly string[]; coordination?: Coordination; logger: Logger }): PlanGates {
  const waiting = options.store.namespace<WaitingRecord>('goal-plans');
  const local = new Map<string, PlanWait>();
  const { coordination } = options;
  if (coordination?.shared) {
    void coordination
      .subscribe(TOPIC, (message) => {
        const wait = local.get(String(message.runId));
        if (wait) wait.onDecision(message.decision as PlanDecision);
      })
      .catch((error: unknown) => options.logger.warn('could not subscribe to plan decisions', { error }));
  }
  const mayDecide = (record: WaitingRecord, user: UserRef) => record.requester === user || options.admins.includes(user);

  // True when the run that waits received it (here or on another replica).
  async function deliver(runId: string, decision: PlanDecision): Promise<boolean> {
    const here = local.get(runId);
    if (here) {
      here.onDecision(decision);
      return true;
    }
    if (!coordination?.shared) return false;
    return (await coordination.publish(TOPIC, { runId, decision })) > 0;
  }

  return {
    async open(wait) {
      const record: WaitingRecord = { runId: wait.runId, thread: wait.thread, requester: wait.requester };
      local.set(wait.runId, wait);
      await waiting.set(`run:${wait.runId}`, record);
      await waiting.set(`thread:${wait.thread}`, record);
      return async () => {
        if (local.get(wait.runId) === wait) local.delete(wait.runId);
        await waiting.delete(`run:${wait.runId}`);
        await waiting.delete(`thread:${wait.thread}`);
      };
    },
    async handleButton(event) {
      if (!PLAN_ACTIONS.has(event.actionId)) return false;
      const record = await waiting.get(`run:${event.value}`);
      if (!record) {
        await event.replyEphemeral('This plan no longer waits for a decision.');
        await event.clearButtons?.().catch((error: unknown) => options.logger.warn('could not remove stale plan buttons', { error }));
        return true;
      }
      if (!mayDecide(record, event.user)) {
        await event.replyEphemeral('Only the person who started this goal or an admin can run, edit or cancel its plan.');
        return true;
      }
      if (event.actionId === EDIT_PLAN_ACTION) {
        await event.replyEphemeral(EDIT_PLAN_HELP);
        return true;
      }
      const kind = event.actionId === RUN_PLAN_ACTION ? 'run' : 'cancel';
      if (!(await deliver(record.runId, { kind, by: event.user }))) await event.replyEphemeral('This plan no longer waits for a decision.');
      return true;
    },
    async handleReply(event) {
      const record = await waiting.get(`thread:${event.thread}`);
      if (!record || !mayDecide(record, event.user)) return false;
      return deliver(record.runId, { kind: 'edit', by: event.user, text: event.text });
    },
  };
}
