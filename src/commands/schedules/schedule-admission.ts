/**
 * Whether a schedule's owner may still act in its channel at the moment it fires (issue 41): the
 * channel is still served (`TSUKA_CHANNELS`), the owner is still in it (asked of the platform now —
 * Slack conversations.members, Discord the guild member and the channel's overwrites) and the
 * channel still allows the character it calls. Otherwise the schedule pauses and its owner is told
 * in a direct message (else an ephemeral in the channel); it never fires "by @owner" meanwhile.
 * The approval rule needs no copy here: each approval of a firing's run reads the channel's rule
 * when it is asked, and only a current member can be the requester who decides.
 */
import { findCharacter } from '../../core/data/character-lookup.js';
import type { Roster } from '../../core/data/types.js';
import type { Logger } from '../../core/logger.js';
import type { FiringAdmission, Schedule } from '../../core/schedules/schedule-types.js';
import type { ChatSurface, Platform } from '../chat-surface.js';
import type { ChannelSettingsLookup, CommandSettings } from '../command-dependencies.js';

export interface ScheduleAdmissionOptions {
  surfaces: Partial<Record<Platform, ChatSurface>>;
  settings: Pick<CommandSettings, 'channels'>;
  channelSettings?: ChannelSettingsLookup;
  roster: Roster;
  maskSecrets(text: string): string;
  logger: Logger;
}

export interface ScheduleAdmission {
  admit(schedule: Schedule): Promise<FiringAdmission>;
  /** Tells the owner, by DM where the platform has one, else by an ephemeral in the channel. */
  tellPaused(schedule: Schedule, reason: string): Promise<void>;
}

const pause = (reason: string): FiringAdmission => ({ verdict: 'pause', reason });

export function createScheduleAdmission(options: ScheduleAdmissionOptions): ScheduleAdmission {
  const allowlist = options.settings.channels && options.settings.channels.length > 0 ? new Set(options.settings.channels) : undefined;

  async function admit(schedule: Schedule): Promise<FiringAdmission> {
    const surface = options.surfaces[schedule.platform as Platform];
    if (!surface) return { verdict: 'skip', reason: `${schedule.platform} is not connected` };
    const raw = schedule.channel.split(/[/:]/).at(-1) ?? schedule.channel;
    if (allowlist && !allowlist.has(schedule.channel) && !allowlist.has(raw)) return pause('TSUKA is no longer enabled in that channel (TSUKA_CHANNELS)');
    if (surface.isMember) {
      let member: boolean;
      try {
        member = await surface.isMember(schedule.channel, schedule.owner);
      } catch (error) {
        // Not confirmed is not a member: this slot does not fire; the next one asks again.
        return { verdict: 'skip', reason: `membership of its owner could not be confirmed (${(error as Error).message})` };
      }
      if (!member) return pause('you are no longer a member of that channel');
    }
    const mention = /^@([\p{L}\p{N}_.-]+)/u.exec(schedule.what);
    const character = mention ? findCharacter(options.roster, mention[1] ?? '') : undefined;
    if (mention && !character) return pause(`there is no character "${mention[1]}" any more`);
    if (character && options.channelSettings) {
      const settings = await options.channelSettings(schedule.channel, surface);
      if (settings.characters && !settings.characters.includes(character.name)) return pause(`that channel no longer allows ${character.name}`);
    }
    return { verdict: 'fire' };
  }

  async function tellPaused(schedule: Schedule, reason: string): Promise<void> {
    const surface = options.surfaces[schedule.platform as Platform];
    if (!surface) return;
    const text = options.maskSecrets(
      `⏸ Your schedule \`${schedule.id}\` (${schedule.when}: ${schedule.what}) is paused and will not run: ${reason}. ` +
        `Once you may act there again, \`/tsuka schedule resume ${schedule.id}\` in that channel starts it again; \`/tsuka unschedule ${schedule.id}\` removes it.`,
    );
    if (surface.postToUser) {
      try {
        await surface.postToUser({ user: schedule.owner, text });
        return;
      } catch (error) {
        options.logger.warn('could not tell the owner by direct message: telling them in the channel', { scheduleId: schedule.id, error });
      }
    }
    await surface.postEphemeral({ channel: schedule.channel, user: schedule.owner, text });
  }

  return { admit, tellPaused };
}
