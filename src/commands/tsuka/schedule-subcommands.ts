/**
 * `/tsuka schedule <when> <what>`, `/tsuka schedules`, `/tsuka unschedule <id>` (issue 25).
 * Schedules belong to the channel they were made in: listed and removed there; the owner or an
 * admin removes one. What a schedule runs is checked when it is made, not when it first fires.
 */
import { findCharacter } from '../../core/data/character-lookup.js';
import { nextFiring, parseSchedule, SCHEDULE_USAGE } from '../../core/schedules/parse-schedule.js';
import { createScheduleStore } from '../../core/schedules/schedule-store.js';
import type { Schedule } from '../../core/schedules/schedule-types.js';
import type { ChatSurface } from '../chat-surface.js';
import type { CommandDependencies } from '../command-dependencies.js';
import type { SlashCommandEvent } from '../inbound-event.js';
import { parseTeamCommand } from '../workflows/parse-team.js';

export const SCHEDULE_SUBCOMMANDS = ['schedule', 'schedules', 'unschedule'] as const;
export type ScheduleSubcommand = (typeof SCHEDULE_SUBCOMMANDS)[number];
export const isScheduleSubcommand = (name: string): name is ScheduleSubcommand => (SCHEDULE_SUBCOMMANDS as readonly string[]).includes(name);

/** Most schedules one channel may hold. */
export const MAX_SCHEDULES_PER_CHANNEL = 50;

export async function handleScheduleSubcommand(
  name: ScheduleSubcommand,
  argument: string,
  event: SlashCommandEvent,
  surface: ChatSurface,
  deps: CommandDependencies,
): Promise<void> {
  const reply = (text: string) => event.reply(deps.maskSecrets(text));
  const store = createScheduleStore(deps.store);
  const timezone = deps.settings.timezone;
  const inChannel = async () => (await store.list()).filter((schedule) => schedule.channel === event.channel);
  switch (name) {
    case 'schedule': {
      const resume = /^resume\s+(\S+)\s*$/i.exec(argument.trim());
      if (resume) return reply(await resumeSchedule(resume[1] ?? '', event, deps));
      const parsed = parseSchedule(argument, {
        ...(timezone ? { timezone } : {}),
        ...(deps.settings.scheduleMinIntervalMs !== undefined ? { minIntervalMs: deps.settings.scheduleMinIntervalMs } : {}),
      });
      if (!parsed.ok) return reply(parsed.message);
      const problem = checkWhat(parsed.what, deps);
      if (problem) return reply(problem);
      if ((await inChannel()).length >= MAX_SCHEDULES_PER_CHANNEL)
        return reply(`This channel has ${MAX_SCHEDULES_PER_CHANNEL} schedules already: remove one with /tsuka unschedule <id>.`);
      const now = (deps.now ?? Date.now)();
      const schedule = await store.add({
        platform: surface.platform,
        channel: event.channel,
        owner: event.user,
        ...(event.userName ? { ownerName: event.userName } : {}),
        when: parsed.when,
        spec: parsed.spec,
        what: parsed.what,
        missed: parsed.missed,
        createdAt: now,
        nextAt: nextFiring(parsed.spec, now, timezone),
      });
      return reply(
        `⏰ Scheduled \`${schedule.id}\`: ${schedule.what} — ${schedule.when}, next ${formatTime(schedule.nextAt, timezone)}. It runs as you (its approvals are yours); ${schedule.missed === 'skip' ? 'runs missed while TSUKA is down are skipped' : 'a run missed while TSUKA is down runs once at start'}. /tsuka unschedule ${schedule.id} removes it.`,
      );
    }
    case 'schedules': {
      const here = await inChannel();
      if (here.length === 0) return reply('No schedules in this channel. `/tsuka schedule every 1h @geordi check the build` makes one.');
      return reply(['**Schedules in this channel**', ...here.map((schedule) => describe(schedule, surface, timezone))].join('\n'));
    }
    case 'unschedule': {
      const id = argument.trim();
      if (!id) return reply('Usage: /tsuka unschedule <id> — /tsuka schedules lists them.');
      const schedule = await store.get(id);
      if (!schedule || schedule.channel !== event.channel) return reply(`No schedule \`${id}\` in this channel.`);
      if (schedule.owner !== event.user && !deps.settings.admins.includes(event.user)) return reply('Only the schedule’s owner or an admin can remove it.');
      await store.remove(id);
      return reply(`Removed the schedule \`${id}\` (${schedule.when}: ${schedule.what}).${schedule.firing ? ' Its run under way goes on; Stop ends it.' : ''}`);
    }
  }
}

/** `/tsuka schedule resume <id>`: a paused schedule (its owner could no longer act) runs again from its next slot. */
async function resumeSchedule(id: string, event: SlashCommandEvent, deps: CommandDependencies): Promise<string> {
  const store = createScheduleStore(deps.store);
  const schedule = await store.get(id);
  if (!schedule || schedule.channel !== event.channel) return `No schedule \`${id}\` in this channel.`;
  if (schedule.owner !== event.user && !deps.settings.admins.includes(event.user)) return 'Only the schedule’s owner or an admin can resume it.';
  if (!schedule.paused) return `The schedule \`${id}\` is not paused.`;
  const now = (deps.now ?? Date.now)();
  const nextAt = nextFiring(schedule.spec, now, deps.settings.timezone);
  await store.update(id, ({ paused: _paused, ...rest }) => ({ ...rest, nextAt }));
  return `Resumed \`${id}\`: next ${formatTime(nextAt, deps.settings.timezone)}. Each run checks again that its owner may act in this channel.`;
}

/** Undefined when `what` can run: `@character text`, `/team <team> <task>`, `/goal <objective>`. */
function checkWhat(what: string, deps: CommandDependencies): string | undefined {
  const goal = /^\/goal\s+(.+)$/is.exec(what);
  if (goal) return undefined;
  const team = /^\/team\s+(.+)$/is.exec(what);
  if (team) {
    const parsed = parseTeamCommand(deps.roster, team[1] ?? '');
    return parsed.ok ? undefined : parsed.message;
  }
  const mention = /^@([\p{L}\p{N}_.-]+)\s+\S/u.exec(what);
  if (mention) return findCharacter(deps.roster, mention[1] ?? '') ? undefined : `There is no character "${mention[1]}". Try /tsuka characters.`;
  return `Say what to run: \`@character text\`, \`/team <team> <task>\` or \`/goal <objective>\`. ${SCHEDULE_USAGE}`;
}

function describe(schedule: Schedule, surface: ChatSurface, timezone?: string): string {
  const running = schedule.paused ? ` · ⏸ paused: ${schedule.paused.reason}` : schedule.firing ? ' · ▶ running now' : '';
  return `\`${schedule.id}\` ${schedule.when} · ${schedule.what} · next ${formatTime(schedule.nextAt, timezone)}${running} · by ${surface.mention(schedule.owner)} · ${schedule.runs} run${schedule.runs === 1 ? '' : 's'}${schedule.missed === 'skip' ? ' · missed runs skipped' : ''}`;
}

function formatTime(at: number, timezone?: string): string {
  return new Intl.DateTimeFormat('en-GB', {
    day: 'numeric',
    month: 'short',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    timeZoneName: 'short',
    ...(timezone ? { timeZone: timezone } : {}),
  }).format(at);
}
