/** A standing job of a channel (issue 25): when it fires, what it runs, whose it is. */

/** `every 30s|5m|2h`, `daily 07:30`, or a five-field cron expression. */
export type ScheduleSpec = { kind: 'every'; ms: number } | { kind: 'daily'; hour: number; minute: number } | { kind: 'cron'; expression: string };

/** What a firing does with runs missed while no process was up: run once at start, or skip them. */
export type MissedRuns = 'once' | 'skip';

export interface Schedule {
  /** `sch-` and six hex digits. */
  id: string;
  platform: string;
  /** The channel it belongs to (opaque id): listed and removed there, runs posted there. */
  channel: string;
  /** Who made it: the runs are theirs, their approvals asked of them (or an admin). */
  owner: string;
  ownerName?: string;
  /** `<when>` as typed, for listings. */
  when: string;
  spec: ScheduleSpec;
  /** `@character text`, `/team …` or `/goal …`. */
  what: string;
  missed: MissedRuns;
  createdAt: number;
  /** Epoch ms of the next firing. */
  nextAt: number;
  lastFiredAt?: number;
  /** Set while a firing runs (the replica running it): the next slot is skipped rather than run beside it. */
  firing?: { replica: string; at: number };
  runs: number;
  /** Set when a firing found that its owner may no longer act in the channel: it fires no more until resumed. */
  paused?: { at: number; reason: string };
}

/**
 * What a due firing may do, decided at that moment: fire; be skipped (nothing could be confirmed now,
 * e.g. the platform did not answer); or pause the schedule (its owner may no longer act there).
 */
export type FiringAdmission = { verdict: 'fire' } | { verdict: 'skip'; reason: string } | { verdict: 'pause'; reason: string };
