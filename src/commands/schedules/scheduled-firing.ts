/**
 * One firing of a schedule (issue 25), through the same command layer as a person: `/goal …` and
 * `/team …` as the owner's slash command (they post their own root message), `@character text` as
 * a root message "⏰ Scheduled …" whose thread the character answers in. The run is the owner's:
 * its approvals are asked of them (or an admin). Resolves when the run has ended.
 */
import type { Schedule } from '../../core/schedules/schedule-types.js';
import type { Logger } from '../../core/logger.js';
import type { ChatSurface, Platform } from '../chat-surface.js';
import type { CommandLayer } from '../create-command-layer.js';

export interface ScheduledFiringOptions {
  layer: Pick<CommandLayer, 'handle' | 'conversations'>;
  surfaces: Partial<Record<Platform, ChatSurface>>;
  maskSecrets(text: string): string;
  logger: Logger;
}

export function createScheduledFiring(options: ScheduledFiringOptions): (schedule: Schedule, firedAt: number) => Promise<void> {
  return async (schedule, firedAt) => {
    const surface = options.surfaces[schedule.platform as Platform];
    if (!surface) {
      options.logger.warn('a schedule fired for a platform that is not connected', { scheduleId: schedule.id, platform: schedule.platform });
      return;
    }
    const base = {
      id: `schedule:${schedule.id}:${firedAt}`,
      platform: schedule.platform as Platform,
      channel: schedule.channel,
      user: schedule.owner,
      ...(schedule.ownerName ? { userName: schedule.ownerName } : {}),
      fromBot: false,
    };
    const command = /^\/(goal|team)\s+([\s\S]+)$/i.exec(schedule.what);
    if (command) {
      await options.layer.handle(
        {
          ...base,
          type: 'slash-command',
          command: (command[1] ?? 'goal').toLowerCase() as 'goal' | 'team',
          text: command[2] ?? '',
          schedule: schedule.id,
          // What the command would answer its owner alone (a usage line, no model) goes to them alone.
          reply: (text) => surface.postEphemeral({ channel: schedule.channel, user: schedule.owner, text }),
        },
        surface,
      );
      return;
    }
    const text = schedule.what.replace(/^@/, '');
    const root = await surface.postRoot({
      channel: schedule.channel,
      text: options.maskSecrets(`⏰ Scheduled (\`${schedule.id}\`, ${schedule.when}) by ${surface.mention(schedule.owner)}: ${schedule.what}`),
      threadTitle: `⏰ ${schedule.what.slice(0, 80)}`,
    });
    await options.layer.handle({ ...base, type: 'mention', message: root.message, thread: root.thread, text, schedule: schedule.id }, surface);
    await options.layer.conversations.turnDone(root.thread);
  };
}
