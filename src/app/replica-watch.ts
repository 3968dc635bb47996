/**
 * With several replicas (Redis): every heartbeat, look for runs whose replica's lease expired,
 * interrupt them (one replica each), tell their threads why, expire their approvals, and answer
 * what was queued behind them. At start the first pass runs once the adapters can post.
 */
import type { Button, ChatSurface, Platform } from '../commands/chat-surface.js';
import { RESUME_ACTION } from '../commands/action-ids.js';
import { RESUMABLE_KINDS } from '../commands/runs/resume-button.js';
import type { CommandLayer } from '../commands/create-command-layer.js';
import { recoverDeadReplicas, type RecoveryReport } from '../core/store/recover-after-restart.js';
import type { Engine } from './create-engine.js';
import { removeDeadRunControls } from './dead-run-controls.js';

export const REPLICA_STOPPED_TEXT = '⚠️ The TSUKA replica running this stopped — this run was interrupted. Ask again to continue.';
export const RESTARTED_TEXT = '⚠️ TSUKA restarted — this run was interrupted. Ask again to continue.';
/** Added for runs that can continue where they stopped, each in its own words (a chat turn is not a /goal). */
export const RESUME_HINTS: Readonly<Record<string, string>> = {
  goal: '**Resume** continues this /goal from its first unfinished step (whoever started it, or an admin).',
  team: '**Resume** continues this /team after its last completed round (whoever started it, or an admin).',
  ask: '**Resume** answers the message again with the thread so far (whoever asked, or an admin).',
};

/** What an interrupted run's thread is told: the stop, and how this kind of run continues. */
export function interruptedNotice(kind: string, why: 'restart' | 'replica'): string {
  const said = why === 'replica' ? REPLICA_STOPPED_TEXT : RESTARTED_TEXT;
  const hint = RESUMABLE_KINDS.includes(kind) ? RESUME_HINTS[kind] : undefined;
  return hint ? `${said}\n${hint}` : said;
}

/** Tells each interrupted run's thread, and shows each expired approval as expired. */
export async function tellInterruptedThreads(
  engine: Engine,
  surfaces: Partial<Record<Platform, ChatSurface>>,
  report: RecoveryReport,
  why: 'restart' | 'replica',
): Promise<void> {
  for (const run of report.interruptedRuns) {
    const surface = surfaces[run.where.platform as Platform];
    if (!surface || !run.where.threadId) continue;
    const resumable = RESUMABLE_KINDS.includes(run.kind);
    const buttons: Button[] = resumable ? [{ actionId: RESUME_ACTION, label: 'Resume', style: 'primary', value: run.id }] : [];
    await removeDeadRunControls(engine, surface, run);
    await surface
      .post({ thread: run.where.threadId, text: interruptedNotice(run.kind, why), ...(resumable ? { buttons } : {}) })
      .catch((error: unknown) => engine.logger.warn('could not tell an interrupted thread', { runId: run.id, error }));
  }
  for (const approval of report.expiredApprovals) {
    const run = await engine.runs.get(approval.runId);
    const surface = run ? surfaces[run.where.platform as Platform] : undefined;
    if (!surface) continue;
    const text = `⌛ Expired — ${why === 'replica' ? 'the TSUKA replica asking stopped' : 'TSUKA restarted'} before a decision.\n> ${approval.summary}`;
    // The process may have died between posting the prompt and recording its message: then say it in the thread.
    const shown = approval.messageRef
      ? surface.edit({ message: approval.messageRef, text, buttons: [] })
      : run?.where.threadId
        ? surface.post({ thread: run.where.threadId, text })
        : Promise.resolve();
    await Promise.resolve(shown).catch((error: unknown) => engine.logger.warn('could not mark an approval expired', { approvalId: approval.id, error }));
  }
}

/** One recovery pass over runs of replicas whose lease expired; the threads are told. */
export async function recoverStoppedReplicas(engine: Engine, surfaces: Partial<Record<Platform, ChatSurface>>, layer?: CommandLayer): Promise<void> {
  const report = await recoverDeadReplicas({ runs: engine.runs, approvals: engine.approvals, coordination: engine.coordination });
  await tellInterruptedThreads(engine, surfaces, report, 'replica');
  for (const run of report.interruptedRuns) {
    // Messages queued behind the stopped turn are answered here now.
    if (run.where.threadId && layer) await layer.conversations.resume(run.where.threadId, run.owner);
  }
}

/** Runs a first pass now (messages queued behind a stopped replica's turns are answered too), then one every `everyMs`; resolves to the stop function. */
export async function watchReplicas(
  engine: Engine,
  surfaces: Partial<Record<Platform, ChatSurface>>,
  layer: CommandLayer,
  everyMs: number,
): Promise<() => void> {
  let running = false;
  const pass = async () => {
    if (running) return;
    running = true;
    await recoverStoppedReplicas(engine, surfaces, layer)
      .catch((error: unknown) => engine.logger.warn('could not look for stopped replicas', { error }))
      .finally(() => (running = false));
  };
  await pass();
  const timer = setInterval(() => void pass(), everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
