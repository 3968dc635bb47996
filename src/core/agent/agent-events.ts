/**
 * What a running turn reports, as a tagged union (noun-verb names). Adapters render these;
 * the store records them. Nothing here is platform-specific.
 */
import type { ModelUsage, ToolCall } from '../model/language-model.js';
import type { RiskLevel } from '../tools/tool.js';

export type TurnFinishReason = 'stop' | 'max-rounds' | 'aborted' | 'error' | 'length';

export type AgentEvent =
  | { type: 'text-delta'; text: string }
  | { type: 'reasoning-delta'; text: string }
  | { type: 'model-call-started'; round: number }
  | {
      type: 'tool-call-started';
      toolCall: ToolCall;
      summary: string;
      riskLevel: RiskLevel;
    }
  | {
      type: 'tool-call-finished';
      toolCall: ToolCall;
      summary: string;
      /** `ok`, `error`, `denied`, `refused` (not offered / invalid input) or `aborted`. */
      outcome: 'ok' | 'error' | 'denied' | 'refused' | 'aborted';
      /** Short human detail, e.g. `1.2 KB`, `exit 1`, `denied by slack:U1`. */
      display: string;
      /** The tool message the model reads back (capped, masked by the registry). */
      output: string;
      durationMs: number;
    }
  /** The model's arguments were near-JSON and were repaired; `notes` say how. */
  | { type: 'tool-input-repaired'; toolCall: ToolCall; notes?: string[] }
  | { type: 'usage'; usage: ModelUsage }
  | { type: 'history-pruned'; removedMessages: number }
  | { type: 'finish'; reason: TurnFinishReason; text: string; error?: Error };

export type AgentEventListener = (event: AgentEvent) => void;
