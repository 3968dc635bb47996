/** Per-agent statistics of a multi-agent run and the table that closes it (design §2.4). */
import type { TurnUsage } from '../agent/agent-runner.js';

export interface AgentStats {
  agent: string;
  turns: number;
  outputTokens: number;
  peakContextTokens: number;
  totalTokens: number;
  durationMs: number;
  /** Time inside model calls: tokens/s divides output tokens by this, not by wall time. */
  modelTimeMs: number;
}

export interface RunStatsCollector {
  add(agent: string, usage: TurnUsage, durationMs: number): void;
  all(): AgentStats[];
  /** Flat numbers for the run record. */
  totals(): Record<string, number>;
  /** Per-agent numbers flattened for the run record (`geordi.outputTokens`, …, `geordi.tokensPerSecond`). */
  perAgent(): Record<string, number>;
}

export function createRunStats(): RunStatsCollector {
  const byAgent = new Map<string, AgentStats>();
  return {
    add(agent, usage, durationMs) {
      const entry = byAgent.get(agent) ?? { agent, turns: 0, outputTokens: 0, peakContextTokens: 0, totalTokens: 0, durationMs: 0, modelTimeMs: 0 };
      entry.turns++;
      entry.outputTokens += usage.completionTokens;
      entry.peakContextTokens = Math.max(entry.peakContextTokens, usage.peakContextTokens);
      entry.totalTokens += usage.promptTokens + usage.completionTokens;
      entry.durationMs += durationMs;
      entry.modelTimeMs += usage.modelTimeMs;
      byAgent.set(agent, entry);
    },
    all: () => [...byAgent.values()],
    totals() {
      const all = [...byAgent.values()];
      return {
        turns: all.reduce((sum, entry) => sum + entry.turns, 0),
        outputTokens: all.reduce((sum, entry) => sum + entry.outputTokens, 0),
        totalTokens: all.reduce((sum, entry) => sum + entry.totalTokens, 0),
        peakContextTokens: Math.max(0, ...all.map((entry) => entry.peakContextTokens)),
      };
    },
    perAgent() {
      const flat: Record<string, number> = {};
      for (const entry of byAgent.values()) {
        flat[`${entry.agent}.outputTokens`] = entry.outputTokens;
        flat[`${entry.agent}.peakContextTokens`] = entry.peakContextTokens;
        flat[`${entry.agent}.totalTokens`] = entry.totalTokens;
        flat[`${entry.agent}.durationMs`] = entry.durationMs;
        flat[`${entry.agent}.tokensPerSecond`] = entry.modelTimeMs > 0 ? Math.round((entry.outputTokens / entry.modelTimeMs) * 10_000) / 10 : 0;
      }
      return flat;
    },
  };
}
