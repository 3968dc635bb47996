/**
 * `/tsuka schedule <when> [--skip-missed] <what>`: `every <n>s|m|h`, `daily HH:MM` or five cron
 * fields (read by croner, not by hand), then the command to run. Times of `daily` and cron are in
 * the configured time zone (`TSUKA_TIMEZONE`, else the host's).
 */
import { Cron } from 'croner';
import type { MissedRuns, ScheduleSpec } from './schedule-types.js';

export type ParsedSchedule = { ok: true; spec: ScheduleSpec; when: string; what: string; missed: MissedRuns } | { ok: false; message: string };

export const SCHEDULE_USAGE =
  'Usage: /tsuka schedule <when> [--skip-missed] <what> — <when> is `every 30s|5m|2h`, `daily HH:MM` or five cron fields (`0 7 * * 1-5`); <what> is `@character text`, `/team <team> <task>` or `/goal <objective>`.';

const EVERY = /^every\s+(\d+)\s*(s|sec|secs|seconds?|m|min|mins|minutes?|h|hours?)(?=\s|$)/i;
const DAILY = /^daily\s+([01]?\d|2[0-3]):([0-5]\d)(?=\s|$)/i;
/** The shortest interval accepted. */
export const MIN_EVERY_MS = 1_000;

export function parseSchedule(text: string, timezone?: string): ParsedSchedule {
  const input = text.trim();
  const taken = takeWhen(input, timezone);
  if (!taken.ok) return taken;
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
    if (ms < MIN_EVERY_MS) return { ok: false, message: 'A schedule runs at most once a second.' };
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
