/**
 * discord.js handles each gateway dispatch inside `@discordjs/ws`'s async message handler: a
 * malformed one (`MESSAGE_CREATE` with `d: null`, say) throws in its packet handler and becomes an
 * unhandled rejection, which ends the process. The guard wraps the manager's packet handling so
 * such a dispatch is logged and dropped; the process-level guard of `tsuka start` catches the rest.
 * https://discord.com/developers/docs/topics/gateway-events#receive-events
 */
import type { Client } from 'discord.js';
import type { Logger } from '../../core/logger.js';

type PacketHandler = (packet?: unknown, shard?: unknown) => boolean;

/** Call once per client, before login. `handlePacket` is typed private, hence the cast. */
export function guardDiscordDispatches(client: Client, logger: Logger): void {
  const manager = client.ws as unknown as { handlePacket: PacketHandler };
  const original = manager.handlePacket.bind(manager);
  manager.handlePacket = (packet, shard) => {
    try {
      return original(packet, shard);
    } catch (error) {
      logger.warn('Discord gateway event dropped: malformed', { event: (packet as { t?: unknown } | undefined)?.t, error });
      return true;
    }
  };
}
