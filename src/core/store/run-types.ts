/** The stored shape of runs (ask, call, team, goal) and their ordered event logs. */

export type RunKind = 'ask' | 'call' | 'team' | 'goal';
export type RunStatus = 'running' | 'completed' | 'failed' | 'interrupted' | 'stopped';

/** Where a run lives in chat; ids are the opaque strings the adapters produce. */
export interface RunLocation {
  platform: string;
  channelId: string;
  threadId?: string;
}

export interface RunStats {
  [name: string]: number | string | undefined;
}

export interface RunRecord {
  id: string;
  kind: RunKind;
  title: string;
  /** Opaque platform user id of whoever started it (e.g. `slack:U0123`). */
  startedBy: string;
  where: RunLocation;
  status: RunStatus;
  /** The replica running it (its lease says whether it is alive); absent for runs of older versions. */
  owner?: string;
  createdAt: number;
  endedAt?: number;
  stats?: RunStats;
}

export type ApprovalOutcome = 'approved' | 'approved-for-run' | 'denied' | 'expired';
export type ToolResultOutcome = 'success' | 'error' | 'denied' | 'aborted';

/** One entry of a run's log, before the store gives it `seq` and `at`. */
export type RunEventInput =
  | { type: 'message'; agent: string; text: string }
  /** `arguments` is the call's JSON as the model wrote it, masked; `callId` pairs it with its result. */
  | { type: 'tool-call'; agent: string; tool: string; summary: string; callId?: string; arguments?: string }
  /** `output` is what the model read back: capped like the model sees it, masked. */
  | { type: 'tool-result'; agent: string; tool: string; outcome: ToolResultOutcome; display: string; output?: string; callId?: string }
  /** The model's reasoning before the text or calls that follow it: stored, never posted. */
  | { type: 'reasoning'; agent: string; text: string }
  | { type: 'error'; agent: string; message: string }
  | { type: 'usage'; agent: string; promptTokens: number; completionTokens: number; modelCalls: number }
  | { type: 'approval'; tool: string; outcome: ApprovalOutcome; decidedBy?: string }
  | { type: 'status'; status: RunStatus; note?: string }
  | { type: 'note'; text: string };

/** A stored run event: `seq` counts from 1 within its run; `at` is epoch milliseconds. */
export type RunEvent = RunEventInput & { seq: number; at: number };
