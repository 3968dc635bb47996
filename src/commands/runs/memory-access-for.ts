/** The memory scope and rights of a conversation in chat (`src/core/scopes/`), from the event's opaque ids. */
import { conversationPlace, memoryScopeOf } from '../../core/scopes/conversation-scope.js';
import type { MemoryAccess } from '../../core/scopes/memory-access.js';
import type { CommandSettings } from '../command-dependencies.js';
import type { ChannelRef, UserRef } from '../chat-surface.js';

/** Memory as `user` may use it in `channel` (a DM: the person's own scope). */
export function memoryAccessFor(settings: Pick<CommandSettings, 'admins'>, where: { channel: ChannelRef; user: UserRef }): MemoryAccess {
  return {
    scope: memoryScopeOf(conversationPlace(where)),
    user: where.user,
    isAdmin: (user) => settings.admins.includes(user),
  };
}
