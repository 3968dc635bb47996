/**
 * The Discord adapter: discord.js 14 on the gateway, REST through discord.js's client (which
 * queues and retries rate limits) with an undici agent of its own, application commands
 * registered at start when they changed. Intents: Guilds, GuildMessages and DirectMessages (with
 * the Channel partial, so DMs arrive), plus the privileged
 * MessageContent, which follow-ups without a mention in the bot's threads need; when the
 * developer portal has not enabled it (close code 4014) the adapter reconnects without it and
 * says once how to enable it — mentions keep working, follow-ups then need a mention.
 */
import { createRequire } from 'node:module';
import { Client, Events, GatewayIntentBits, Partials, REST, Routes } from 'discord.js';
import type { DiscordConfig } from '../../config/app-config.js';
import type { ChatSurface } from '../../commands/chat-surface.js';
import type { InboundEvent } from '../../commands/inbound-event.js';
import type { Logger } from '../../core/logger.js';
import { registerDiscordCommands } from './application-commands.js';
import { registerDiscordListeners } from './events.js';
import { countRateLimits, createDiscordEditPacer, reportDiscordCalls, DISCORD_DEFAULT_PACING, type DiscordPacing } from './rate-limits.js';
import type { SharedBudget } from '../shared/call-budget.js';
import { createDiscordSurface } from './surface.js';
import { createDiscordWebhooks, type WebhookPictures } from './webhooks.js';
import { guardDiscordDispatches } from './dispatch-guard.js';

/** Gateway close code for a privileged intent the application may not use. */
export const DISALLOWED_INTENTS_CLOSE_CODE = 4014;

export interface DiscordAdapterOptions {
  config: DiscordConfig;
  handle: (event: InboundEvent, surface: ChatSurface) => Promise<void>;
  logger: Logger;
  editIntervalMs: number;
  plainMentions: boolean;
  pacing?: Partial<DiscordPacing>;
  /** With replicas: edit spacing shared through Redis (the coordination's `takeToken`). */
  sharedBudget?: SharedBudget;
  /** The characters' pictures: a character without a picture URL gets a webhook of its own carrying it. */
  pictures?: WebhookPictures;
}

export interface DiscordAdapter {
  readonly surface: ChatSurface;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Posts without the gateway (another replica holds it): REST only, with the bot's ids looked up. */
  standby(): Promise<void>;
  /** Closes the gateway session only; posting goes on over REST (leadership moved to another replica). */
  stopGateway(): Promise<void>;
  readonly connected: () => boolean;
  /** Whether the session has the MessageContent intent (false after a 4014 fallback). */
  readonly messageContent: () => boolean;
  /** 429 answers met and retried by the REST client. */
  readonly rateLimitedCount: () => number;
  /** Scopes whose application commands were written at the last start (`global` or guild ids). */
  readonly registeredScopes: () => string[];
}

type RestAgent = Parameters<REST['setAgent']>[0];
interface AgentLike {
  destroy(): Promise<void>;
}

/**
 * An agent from the undici that `@discordjs/rest` itself uses. Without it, a process that also
 * runs Bolt's Socket Mode (which installs undici 7 as Node's global dispatcher) fails every
 * multipart request — file uploads — with `action is not a function` (platform notes).
 */
function createRestAgent(): RestAgent & AgentLike {
  const require = createRequire(import.meta.url);
  const fromDiscord = createRequire(require.resolve('discord.js'));
  const fromRest = createRequire(fromDiscord.resolve('@discordjs/rest'));
  const undici = fromRest('undici') as { Agent: new () => RestAgent & AgentLike };
  return new undici.Agent();
}

export function createDiscordAdapter(options: DiscordAdapterOptions): DiscordAdapter {
  const { config, logger } = options;
  const agent = createRestAgent();
  let client: Client | undefined;
  let botUserId = '';
  let applicationId = '';
  let connected = false;
  let messageContent = true;
  let registeredScopes: string[] = [];
  const rateLimitCounters: (() => number)[] = [];

  let standalone: REST | undefined;
  const rest = (): REST => {
    if (client) return client.rest;
    if (standalone) return standalone;
    throw new Error('the Discord adapter is not started');
  };
  const standaloneRest = (): REST => {
    standalone ??= new REST({ api: config.apiUrl }).setToken(config.botToken);
    standalone.setAgent(agent);
    return standalone;
  };
  const pacer = createDiscordEditPacer({ ...DISCORD_DEFAULT_PACING, ...options.pacing }, Date.now, options.sharedBudget);
  const webhooks = createDiscordWebhooks({ rest, applicationId: () => applicationId, logger, pictures: options.pictures });
  const surface = createDiscordSurface({
    rest,
    webhooks,
    pacer,
    editIntervalMs: options.editIntervalMs,
    logger,
    apiUrl: config.apiUrl,
    bot: () => ({ userId: botUserId, applicationId }),
  });

  /** Logs in with the given intents; resolves `false` when the gateway refuses MessageContent. */
  async function connect(withContent: boolean): Promise<boolean> {
    const intents = [
      GatewayIntentBits.Guilds,
      GatewayIntentBits.GuildMessages,
      // Direct messages (not privileged); DM channels are not cached, hence the Channel partial.
      GatewayIntentBits.DirectMessages,
      ...(withContent ? [GatewayIntentBits.MessageContent] : []),
    ];
    const next = new Client({ intents, partials: [Partials.Channel], rest: { api: config.apiUrl } });
    next.rest.setAgent(agent);
    guardDiscordDispatches(next, logger);
    rateLimitCounters.push(countRateLimits(next.rest));
    reportDiscordCalls(next.rest);
    client = next;
    registerDiscordListeners({
      client: next,
      botUserId: () => botUserId,
      applicationId: () => applicationId,
      plainMentions: options.plainMentions,
      dispatch: (event) => options.handle(event, surface),
      logger,
    });
    next.on(Events.Error, (error) => logger.error('Discord client error', { error }));
    next.on(Events.ShardError, (error) => logger.warn('Discord gateway error', { error }));
    const outcome = await new Promise<'ready' | 'disallowed'>((resolve, reject) => {
      next.once(Events.ClientReady, (ready) => {
        // Set before any message is handled: mentions are recognised by this id.
        botUserId = ready.user.id;
        applicationId = ready.application.id;
        resolve('ready');
      });
      next.on(Events.ShardDisconnect, (event) => {
        if (event.code === DISALLOWED_INTENTS_CLOSE_CODE) resolve('disallowed');
      });
      next.login(config.botToken).catch(reject);
    });
    if (outcome === 'ready') return true;
    await next.destroy();
    return false;
  }

  return {
    surface,
    connected: () => connected,
    messageContent: () => messageContent,
    rateLimitedCount: () => rateLimitCounters.reduce((sum, count) => sum + count(), 0),
    registeredScopes: () => registeredScopes,
    async start() {
      if (!(await connect(true))) {
        messageContent = false;
        logger.warn(
          'Discord refused the Message Content intent: enable "Message Content Intent" for the bot in the Discord developer portal (Bot → Privileged Gateway Intents). Until then, follow-ups in threads need a mention of the bot.',
        );
        if (!(await connect(false))) throw new Error('Discord refused the gateway intents even without Message Content');
      }
      const ready = client as Client<true>;
      registeredScopes = await registerDiscordCommands({ rest: ready.rest, applicationId, guildIds: config.guildIds, logger });
      connected = true;
      logger.info('Discord connected', { botUserId, guilds: ready.guilds.cache.size, messageContent });
    },
    async standby() {
      const api = standaloneRest();
      const [application, user] = (await Promise.all([api.get(Routes.currentApplication()), api.get(Routes.user('@me'))])) as [{ id: string }, { id: string }];
      applicationId = application.id;
      botUserId = user.id;
      logger.info('Discord on standby: another replica holds the gateway; this one posts over REST', { botUserId });
    },
    async stopGateway() {
      connected = false;
      const closing = client;
      client = undefined;
      standaloneRest();
      await closing?.destroy();
    },
    async stop() {
      connected = false;
      pacer.stop();
      await client?.destroy();
      await agent.destroy().catch((error: unknown) => logger.debug('Discord REST agent did not close cleanly', { error }));
    },
  };
}
