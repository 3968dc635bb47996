/**
 * Every chat-platform call's answer, published on a process-wide diagnostics channel
 * (`node:diagnostics_channel`): the adapters report each attempt (a 429 retried is one call with
 * status `429`, then another), and telemetry (`src/app/telemetry/`) listens when metrics or
 * traces are on. Publishing costs one check while nobody listens.
 */
import { channel } from 'node:diagnostics_channel';

export const PLATFORM_CALL_CHANNEL = 'tsuka:platform-call';

export interface PlatformCallReport {
  platform: string;
  /** The platform's method or route: `chat.postMessage`, `POST /channels/:id/messages`. */
  method: string;
  /** `200`, `429`, `500`…, `network` (no answer), `error` (answered with an error of the platform's own). */
  status: string;
  /** Epoch milliseconds. */
  startedAt: number;
  endedAt: number;
}

const calls = channel(PLATFORM_CALL_CHANNEL);

export function reportPlatformCall(report: PlatformCallReport): void {
  if (calls.hasSubscribers) calls.publish(report);
}

/** Runs one attempt of `call` and reports it, with the status `statusOf` reads from a failure. */
export async function reportedCall<T>(platform: string, method: string, call: () => Promise<T>, statusOf: (error: unknown) => string): Promise<T> {
  if (!calls.hasSubscribers) return call();
  const startedAt = Date.now();
  try {
    const result = await call();
    reportPlatformCall({ platform, method, status: '200', startedAt, endedAt: Date.now() });
    return result;
  } catch (error) {
    reportPlatformCall({ platform, method, status: statusOf(error), startedAt, endedAt: Date.now() });
    throw error;
  }
}
