/**
 * Test fixture: an emulator plus a real discord.js client logged in to it and ready.
 */
import { once } from 'node:events';
import { Client, Events, GatewayIntentBits } from 'discord.js';
import { startDiscordEmulator, type DiscordEmulator, type DiscordEmulatorOptions } from './discord-emulator.js';

/** The intents TSUKA's adapter asks for. */
export const FULL_INTENTS = [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent];

/** An emulator and a ready client; `stop()` destroys the client, then closes the emulator. */
export interface ClientFixture {
  emulator: DiscordEmulator;
  client: Client<true>;
  stop(): Promise<void>;
}

/** Starts an emulator and logs a client in; resolves once discord.js emits `clientReady`. */
export async function startClientFixture(options: DiscordEmulatorOptions = {}, intents: GatewayIntentBits[] = FULL_INTENTS): Promise<ClientFixture> {
  const emulator = await startDiscordEmulator(options);
  const client = new Client({ intents, rest: { api: emulator.apiUrl } });
  try {
    const ready = once(client, Events.ClientReady);
    await client.login(emulator.botToken);
    await ready;
  } catch (error) {
    await client.destroy();
    await emulator.close();
    throw error;
  }
  return {
    emulator,
    client: client as Client<true>,
    async stop() {
      await client.destroy();
      await emulator.close();
    },
  };
}
