/**
 * Writes a turn's events into its run's event log, in order and masked, before they are shown:
 * the model's text (one entry per stretch between tool calls), its reasoning (stored, never
 * posted), each tool call with its arguments and its output as the model saw it (capped), errors
 * and usage. Deltas are gathered per agent and written when the stretch ends.
 */
import type { AgentEvent } from '../../core/agent/agent-events.js';
import type { RunStore } from '../../core/store/run-store.js';

const OUTCOME_FOR_STORE = { ok: 'success', error: 'error', denied: 'denied', refused: 'error', aborted: 'aborted' } as const;

export interface TranscriptWriter {
  /** Stores what `event` adds to the transcript; call in the order the agent emitted them. */
  record(agent: string, event: AgentEvent): Promise<void>;
}

interface Pending {
  text: string;
  reasoning: string;
  promptTokens: number;
  completionTokens: number;
  modelCalls: number;
}

export function createTranscriptWriter(runs: RunStore, maskSecrets: (text: string) => string, runId: string): TranscriptWriter {
  const pending = new Map<string, Pending>();
  const of = (agent: string): Pending => {
    let entry = pending.get(agent);
    if (!entry) {
      entry = { text: '', reasoning: '', promptTokens: 0, completionTokens: 0, modelCalls: 0 };
      pending.set(agent, entry);
    }
    return entry;
  };

  async function flush(agent: string, entry: Pending): Promise<void> {
    // Reasoning comes before the text it led to.
    if (entry.reasoning.trim() !== '') await runs.appendEvent(runId, { type: 'reasoning', agent, text: maskSecrets(entry.reasoning.trim()) });
    if (entry.text.trim() !== '') await runs.appendEvent(runId, { type: 'message', agent, text: maskSecrets(entry.text.trim()) });
    entry.reasoning = '';
    entry.text = '';
  }

  return {
    async record(agent, event) {
      const entry = of(agent);
      switch (event.type) {
        case 'text-delta':
          entry.text += event.text;
          return;
        case 'reasoning-delta':
          entry.reasoning += event.text;
          return;
        case 'usage':
          entry.promptTokens += event.usage.promptTokens;
          entry.completionTokens += event.usage.completionTokens;
          return;
        case 'model-call-started':
          entry.modelCalls++;
          return flush(agent, entry);
        case 'tool-call-started':
          await flush(agent, entry);
          await runs.appendEvent(runId, {
            type: 'tool-call',
            agent,
            tool: event.toolCall.name,
            callId: event.toolCall.id,
            summary: maskSecrets(event.summary),
            arguments: maskSecrets(event.toolCall.arguments),
          });
          return;
        case 'tool-call-finished':
          await runs.appendEvent(runId, {
            type: 'tool-result',
            agent,
            tool: event.toolCall.name,
            callId: event.toolCall.id,
            outcome: OUTCOME_FOR_STORE[event.outcome],
            display: maskSecrets(event.display),
            output: maskSecrets(event.output),
          });
          return;
        case 'tool-input-repaired':
          await runs.appendEvent(runId, {
            type: 'note',
            text: maskSecrets(
              `${agent}: the arguments of ${event.toolCall.name} were repaired${event.notes && event.notes.length > 0 ? ` (${event.notes.join('; ')})` : ''}`,
            ),
          });
          return;
        case 'finish':
          await flush(agent, entry);
          if (event.error) await runs.appendEvent(runId, { type: 'error', agent, message: maskSecrets(event.error.message) });
          if (entry.modelCalls > 0) {
            await runs.appendEvent(runId, {
              type: 'usage',
              agent,
              promptTokens: entry.promptTokens,
              completionTokens: entry.completionTokens,
              modelCalls: entry.modelCalls,
            });
          }
          pending.delete(agent);
          return;
        default:
          return;
      }
    },
  };
}
