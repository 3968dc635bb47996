/**
 * The command layer's dependencies as they apply in one channel: its workspace folder (the jail,
 * the sandbox's writable root and /goal's staging follow it) when the `channels` section maps one.
 */
import type { ChannelRef, ChatSurface } from '../chat-surface.js';
import type { CommandDependencies } from '../command-dependencies.js';
import { createChannelSettings } from './channel-settings.js';

export async function depsInChannel(deps: CommandDependencies, channel: ChannelRef, surface: ChatSurface): Promise<CommandDependencies> {
  if (!deps.settings.channelPolicies?.some((policy) => policy.workspace !== undefined)) return deps;
  const lookup = deps.channelSettings ?? createChannelSettings(deps);
  const { workspace } = await lookup(channel, surface);
  return workspace === deps.workspace ? deps : { ...deps, workspace, channelSettings: lookup };
}
