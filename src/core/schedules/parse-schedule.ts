/**
 * `/tsuka schedule <when> [--skip-missed] <what>`: `every <n>s|m|h`, `daily HH:MM` or five cron
 * fields (read by croner, not by hand), then the command to run. Times of `daily` and cron are in
 * the configured time zone (`TSUKA_TIMEZONE`, else the host's).
 */
import { Cron } from 'croner';
import type { MissedRuns, ScheduleSpec } from './schedule-types.js';

export type ParsedSchedule = { ok: true; spec: ScheduleSpec; when: string; what: string; missed: MissedRuns } | { ok: false; message: string };

export const SCHEDULE_USAGE =
  'Usage: /tsuka schedule <when> [--skip-missed] <what> — <when> is `every 5m|2h` (at least `TSUKA_SCHEDULE_MIN_INTERVAL_S`, 60 s by default), `daily HH:MM` or five cron fields (`0 7 * * 1-5`); <what> is `@character text`, `/team <team> <task>` or `/goal <objective>`.';

const EVERY = /^every\s+(\d+)\s*(s|sec|secs|seconds?|m|min|mins|minutes?|h|hours?)(?=\s|$)/i;
const DAILY = /^daily\s+([01]?\d|2[0-3]):([0-5]\d)(?=\s|$)/i;
/** The shortest interval between two firings when the settings name none (`TSUKA_SCHEDULE_MIN_INTERVAL_S`). */
export const DEFAULT_SCHEDULE_MIN_INTERVAL_MS = 60_000;
/** Consecutive cron firings looked at for the shortest gap. */
const CRON_GAPS_CHECKED = 24;

export interface ParseScheduleOptions {
  timezone?: string;
  /** The shortest interval accepted between two firings (every, cron); default one minute. */
  minIntervalMs?: number;
}

export function parseSchedule(text: string, options: ParseScheduleOptions = {}): ParsedSchedule {
  const input = text.trim();
  const { timezone } = options;
  const taken = takeWhen(input, timezone);
  if (!taken.ok) return taken;
  const floor = options.minIntervalMs ?? DEFAULT_SCHEDULE_MIN_INTERVAL_MS;
  const gap = shortestGap(taken.spec, timezone);
  if (gap < floor) {
    return {
      ok: false,
      message: `A schedule may run at most once every ${describeInterval(floor)} (TSUKA_SCHEDULE_MIN_INTERVAL_S); "${input.slice(0, taken.length).trim()}" would run every ${describeInterval(gap)}.`,
    };
  }
  let rest = input.slice(taken.length).trim();
  let missed: MissedRuns = 'once';
  if (/^--skip-missed(?=\s|$)/i.test(rest)) {
    missed = 'skip';
    rest = rest.replace(/^--skip-missed/i, '').trim();
  }
  if (rest === '') return { ok: false, message: `Say what to run after the time. ${SCHEDULE_USAGE}` };
  return { ok: true, spec: taken.spec, when: input.slice(0, taken.length).trim(), what: rest, missed };
}

function takeWhen(input: string, timezone?: string): { ok: true; spec: ScheduleSpec; length: number } | { ok: false; message: string } {
  const every = EVERY.exec(input);
  if (every) {
    const unit = (every[2] ?? 's').toLowerCase();
    const ms = Number(every[1]) * (unit.startsWith('h') ? 3_600_000 : unit.startsWith('m') ? 60_000 : 1_000);
    return { ok: true, spec: { kind: 'every', ms }, length: every[0].length };
  }
  const daily = DAILY.exec(input);
  if (daily) return { ok: true, spec: { kind: 'daily', hour: Number(daily[1]), minute: Number(daily[2]) }, length: daily[0].length };
  if (/^(every|daily)\b/i.test(input)) return { ok: false, message: `That time is not one I read. ${SCHEDULE_USAGE}` };
  const fields = input.split(/\s+/).slice(0, 5);
  if (fields.length < 5) return { ok: false, message: SCHEDULE_USAGE };
  const expression = fields.join(' ');
  try {
    new Cron(expression, { paused: true, ...(timezone ? { timezone } : {}) });
  } catch (error) {
    return { ok: false, message: `"${expression}" is not a cron expression (${(error as Error).message}). ${SCHEDULE_USAGE}` };
  }
  // The five fields as typed, whatever the spacing: the text after them is the command.
  const length = input.indexOf(fields[4] as string, input.indexOf(fields[3] as string) + (fields[3] as string).length) + (fields[4] as string).length;
  return { ok: true, spec: { kind: 'cron', expression }, length };
}

/** The first firing strictly after `after` (epoch ms). */
export function nextFiring(spec: ScheduleSpec, after: number, timezone?: string): number {
  if (spec.kind === 'every') return after + spec.ms;
  const expression = spec.kind === 'daily' ? `${spec.minute} ${spec.hour} * * *` : spec.expression;
  const next = new Cron(expression, { paused: true, ...(timezone ? { timezone } : {}) }).nextRun(new Date(after));
  // A valid expression that never fires again (e.g. 30 February): far in the future rather than a busy loop.
  return next ? next.getTime() : after + 365 * 24 * 3_600_000;
}

/** The shortest time between two firings of `spec` (cron: over its next firings). */
function shortestGap(spec: ScheduleSpec, timezone?: string): number {
  if (spec.kind === 'every') return spec.ms;
  if (spec.kind === 'daily') return 24 * 3_600_000;
  const runs = new Cron(spec.expression, { paused: true, ...(timezone ? { timezone } : {}) }).nextRuns(CRON_GAPS_CHECKED);
  let gap = Number.POSITIVE_INFINITY;
  for (let index = 1; index < runs.length; index++) gap = Math.min(gap, (runs[index] as Date).getTime() - (runs[index - 1] as Date).getTime());
  return gap;
}

function describeInterval(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds % 3600 === 0) return seconds === 3600 ? 'hour' : `${seconds / 3600} hours`;
  if (seconds % 60 === 0) return seconds === 60 ? 'minute' : `${seconds / 60} minutes`;
  return seconds === 1 ? 'second' : `${seconds} seconds`;
}
