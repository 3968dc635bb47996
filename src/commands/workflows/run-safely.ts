/** Runs a workflow body and always finishes its session: an unexpected error ends the run as failed, said in the thread. */
import { WorkflowTurnError } from '../../core/workflows/workflow-turn-error.js';
import type { CommandDependencies } from '../command-dependencies.js';
import type { WorkflowFinish, WorkflowSession } from './workflow-session.js';

export async function runSafely(session: WorkflowSession, deps: Pick<CommandDependencies, 'logger'>, body: () => Promise<WorkflowFinish>): Promise<void> {
  let outcome: WorkflowFinish;
  try {
    outcome = await body();
  } catch (error) {
    if (error instanceof WorkflowTurnError) {
      deps.logger.warn('workflow ended by a failed turn', { runId: session.runId, agent: error.agent, error });
      outcome = { status: 'failed', headline: '✖ Run failed.', summary: error.message };
    } else {
      deps.logger.error('workflow failed', { runId: session.runId, error });
      outcome = {
        status: 'failed',
        headline: '⚠️ This run failed on my side.',
        summary: error instanceof Error ? error.message : 'The details are in the bot log.',
      };
    }
  }
  await session.finish(outcome);
}
