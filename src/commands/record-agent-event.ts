/** Stores a turn's tool activity in its run's event log (masked) — before the event is shown anywhere. */
import type { AgentEvent } from '../core/agent/agent-events.js';
import type { RunStore } from '../core/store/run-store.js';

const OUTCOME_FOR_STORE = { ok: 'success', error: 'error', denied: 'denied', refused: 'error', aborted: 'aborted' } as const;

export async function recordAgentEvent(runs: RunStore, maskSecrets: (text: string) => string, runId: string, agent: string, event: AgentEvent): Promise<void> {
  if (event.type === 'tool-call-started') {
    await runs.appendEvent(runId, { type: 'tool-call', agent, tool: event.toolCall.name, summary: maskSecrets(event.summary) });
  } else if (event.type === 'tool-call-finished') {
    await runs.appendEvent(runId, { type: 'tool-result', agent, tool: event.toolCall.name, outcome: OUTCOME_FOR_STORE[event.outcome], display: maskSecrets(event.display) });
  }
}
