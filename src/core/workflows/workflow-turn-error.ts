import { TsukaError } from '../errors.js';

/** A member's turn failed on the model side: the run ends (failed) instead of going on without it. */
export class WorkflowTurnError extends TsukaError {
  readonly agent: string;
  constructor(agent: string, message: string, options?: { cause?: unknown }) {
    super('workflow_turn_failed', `${agent}'s turn failed: ${message}`, options);
    this.agent = agent;
  }
}
