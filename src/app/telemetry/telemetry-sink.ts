/**
 * What telemetry hears, as plain facts with their times (epoch milliseconds): a run's start and
 * end, each model call, tool call, approval wait and platform call. The observers in this folder
 * derive them from what already exists — the run store's records and event log, the model port,
 * the approval store, the adapters' platform-call channel — and hand them to every sink: the
 * Prometheus metrics and, when configured, the OpenTelemetry traces.
 */

export interface RunStart {
  runId: string;
  kind: string;
  platform: string;
  startedAt: number;
}

export interface RunEnd extends RunStart {
  /** The run's final status: completed, failed, stopped, interrupted. */
  outcome: string;
  endedAt: number;
}

export interface ModelCallReport {
  /** The run the call was made for, when it was made inside one. */
  runId?: string;
  modelId: string;
  providerId: string;
  /** ok, error, aborted. */
  outcome: string;
  promptTokens: number;
  completionTokens: number;
  startedAt: number;
  endedAt: number;
}

export interface ToolCallReport {
  runId: string;
  tool: string;
  risk: string;
  /** success, error, denied, aborted. */
  outcome: string;
  startedAt: number;
  endedAt: number;
}

export interface ApprovalWaitReport {
  runId: string;
  tool: string;
  risk: string;
  /** approved, approved-for-run, denied, expired. */
  outcome: string;
  startedAt: number;
  endedAt: number;
}

export interface PlatformCallFact {
  platform: string;
  method: string;
  status: string;
  startedAt: number;
  endedAt: number;
}

export interface TelemetrySink {
  runStarted(run: RunStart): void;
  runEnded(run: RunEnd): void;
  modelCall(call: ModelCallReport): void;
  toolCall(call: ToolCallReport): void;
  approvalStarted(wait: { runId: string; tool: string; risk: string; startedAt: number }): void;
  approvalWait(wait: ApprovalWaitReport): void;
  platformCall(call: PlatformCallFact): void;
}

/** One sink that tells each of `sinks`; a sink that throws is skipped (telemetry never breaks a run). */
export function fanOut(sinks: TelemetrySink[], onError: (error: unknown) => void): TelemetrySink {
  const each =
    <K extends keyof TelemetrySink>(name: K) =>
    (fact: Parameters<TelemetrySink[K]>[0]): void => {
      for (const sink of sinks) {
        try {
          (sink[name] as (fact: Parameters<TelemetrySink[K]>[0]) => void)(fact);
        } catch (error) {
          onError(error);
        }
      }
    };
  return {
    runStarted: each('runStarted'),
    runEnded: each('runEnded'),
    modelCall: each('modelCall'),
    toolCall: each('toolCall'),
    approvalStarted: each('approvalStarted'),
    approvalWait: each('approvalWait'),
    platformCall: each('platformCall'),
  };
}
