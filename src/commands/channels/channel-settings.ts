/**
 * The settings that apply in one channel: its entry in the `channels` section (matched by opaque
 * id, raw id, or `#name` once the platform told the name) over the global ones, plus what the
 * platform says of the channel (a DM, private or public, how many are in it). Workspaces are
 * opened once per folder.
 */
import { approversFor } from '../../core/scopes/approval-rule.js';
import { createWorkspaceSharing } from './workspace-sharing.js';
import { findChannelPolicy } from '../../core/scopes/channel-policy.js';
import { createWorkspace } from '../../core/safety/workspace-jail.js';
import type { Workspace } from '../../core/tools/tool.js';
import type { ChannelInfo, ChannelRef, ChatSurface } from '../chat-surface.js';
import type { ChannelSettings, ChannelSettingsLookup, CommandDependencies } from '../command-dependencies.js';

export type { ChannelSettings };

/** More than the bot and one person: others could approve, and see what is said. */
export const othersPresent = (info: ChannelInfo | undefined): boolean => info === undefined || (info.kind !== 'dm' && (info.members ?? 3) > 2);

export function createChannelSettings(deps: Pick<CommandDependencies, 'settings' | 'workspace' | 'logger'>): ChannelSettingsLookup {
  const policies = deps.settings.channelPolicies ?? [];
  const shared = createWorkspaceSharing(policies, deps.workspace.root);
  const workspaces = new Map<string, Promise<Workspace>>();
  const workspaceAt = (folder: string): Promise<Workspace> => {
    let opened = workspaces.get(folder);
    if (!opened) {
      opened = createWorkspace(folder);
      workspaces.set(folder, opened);
      // A folder that cannot be opened is tried again next time (and said), never silently replaced.
      opened.catch(() => workspaces.delete(folder));
    }
    return opened;
  };
  const info = async (channel: ChannelRef, surface: ChatSurface): Promise<ChannelInfo | undefined> => {
    if (!surface.channelInfo) return undefined;
    return surface.channelInfo(channel).catch((error: unknown) => {
      deps.logger.debug('channel info not available: treated as a shared channel', { channel, error });
      return undefined;
    });
  };
  const lookup = (async (channel, surface) => {
    const described = await info(channel, surface);
    const policy = findChannelPolicy(policies, channel, described?.name);
    return {
      workspace: policy?.workspace ? await workspaceAt(policy.workspace) : deps.workspace,
      ...(policy?.defaultCharacter ? { defaultCharacter: policy.defaultCharacter } : {}),
      ...(policy?.characters ? { characters: policy.characters } : {}),
      dangerousApproval: policy?.dangerousApproval ?? deps.settings.dangerousApproval ?? 'other',
      threadReplies: policy?.threadReplies ?? deps.settings.threadReplies ?? 'starter',
      ...(described ? { info: described } : {}),
      policy,
    };
  }) as ChannelSettingsLookup;
  lookup.dangerousApprovers = async ({ surface, thread }) => {
    const settings = await lookup(surface.channelOf(thread), surface);
    const others = othersPresent(settings.info);
    const room = { othersPresent: others, sharedWorkspace: await shared(settings.policy, settings.workspace.root), operator: settings.info?.operator === true };
    return { approvers: approversFor('DANGEROUS', settings.dangerousApproval, room), alone: !others };
  };
  return lookup;
}
