/** Starts the process's schedule runner once the adapters can post (issue 25); returns its stop. */
import type { ChatSurface, Platform } from '../commands/chat-surface.js';
import type { CommandDependencies } from '../commands/command-dependencies.js';
import type { CommandLayer } from '../commands/create-command-layer.js';
import { createScheduleAdmission } from '../commands/schedules/schedule-admission.js';
import { createScheduledFiring } from '../commands/schedules/scheduled-firing.js';
import { createScheduleRunner } from '../core/schedules/schedule-runner.js';
import { createScheduleStore } from '../core/schedules/schedule-store.js';
import type { Engine } from './create-engine.js';

export function startSchedules(
  engine: Engine,
  layer: CommandLayer,
  surfaces: Partial<Record<Platform, ChatSurface>>,
  deps: Pick<CommandDependencies, 'settings' | 'channelSettings' | 'roster'>,
): () => void {
  // Each firing first asks whether its owner may still act in the channel (issue 41).
  const admission = createScheduleAdmission({
    surfaces,
    settings: deps.settings,
    ...(deps.channelSettings ? { channelSettings: deps.channelSettings } : {}),
    roster: deps.roster,
    maskSecrets: engine.maskSecrets,
    logger: engine.logger,
  });
  const runner = createScheduleRunner({
    schedules: createScheduleStore(engine.store),
    coordination: engine.coordination,
    fire: createScheduledFiring({ layer, surfaces, maskSecrets: engine.maskSecrets, logger: engine.logger }),
    admit: admission.admit,
    paused: admission.tellPaused,
    logger: engine.logger,
    ...(engine.config.timezone ? { timezone: engine.config.timezone } : {}),
  });
  runner.start();
  return () => runner.stop();
}
