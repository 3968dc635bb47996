/**
 * `tsuka start`: builds the engine and the command layer, tells threads about runs a previous
 * process left behind, and starts every adapter whose credentials are set (none: the playground).
 */
import { describePersistence } from '../core/coordination/redis-store-marker.js';
import type { AppConfig } from '../config/app-config.js';
import type { ConsoleIo } from './console-io.js';
import type { ChatSurface, Platform } from '../commands/chat-surface.js';
import { createCommandLayer, type CommandLayer } from '../commands/create-command-layer.js';
import { createEngine, type Engine } from './create-engine.js';
import { createAnnouncer, createLogger, resolveLogFormat } from './create-logger.js';
import { createModelControl } from './model-control.js';
import { commandDependencies } from './command-wiring.js';
import { createWorkflows } from '../commands/workflows/create-workflows.js';
import { createConfigMasker } from './config-masker.js';
import { ownerProcessAlive, recoverAfterRestart } from '../core/store/recover-after-restart.js';
import { replicaHost } from '../core/coordination/local-coordination.js';
import { isRedisUrl } from '../core/coordination/open-coordination.js';
import type { Leadership, RateRule } from '../core/coordination/coordination.js';
import { tellInterruptedThreads, watchReplicas } from './replica-watch.js';
import { startSchedules } from './schedule-wiring.js';
// Adapters are imported when their platform is configured: a Slack-only bot never loads discord.js.
import type { createSlackAdapter, SlackAdapter } from '../adapters/slack/index.js';
import type { createDiscordAdapter, DiscordAdapter } from '../adapters/discord/index.js';
import type { PlaygroundAdapter } from '../adapters/playground/index.js';
import { createPlaygroundPersistence } from '../adapters/playground/persistence.js';
import { playgroundStartUrl } from '../adapters/playground/access-key.js';
import type { InputLimiter } from '../adapters/playground/rate-limits.js';

/** How often a streaming reply is redrawn in the playground (no platform budget applies). */
const PLAYGROUND_EDIT_INTERVAL_MS = 150;
import { checkPortFree, startHttpServer, type HttpServer } from './http-server.js';
import { installProcessGuard } from './process-guard.js';
import { avatarRoutes } from './avatar-routes.js';
import { characterPictures } from '../commands/reply/avatars.js';
import { acquireDataFolderLock } from './data-folder-lock.js';
import { startRetention } from './retention-schedule.js';
import { startTelemetry } from './telemetry/start-telemetry.js';
import type { LanguageModel } from '../core/model/language-model.js';
import { suggestedPrompts } from '../commands/turns/assistant-prompts.js';

export interface RunningApp {
  engine: Engine;
  layer: CommandLayer;
  surfaces: Partial<Record<Platform, ChatSurface>>;
  http: HttpServer;
  stop(): Promise<void>;
}

export interface StartAppOptions {
  config: AppConfig;
  io: ConsoleIo;
  /** Tests inject these. */
  fetch?: typeof fetch;
  model?: LanguageModel;
  slackRetries?: number;
  slackRateLimits?: Parameters<typeof createSlackAdapter>[0]['rateLimits'];
  discordPacing?: Parameters<typeof createDiscordAdapter>[0]['pacing'];
  /** The playground's input limit (its own by default). */
  playgroundLimiter?: InputLimiter;
  /** `tsuka start` sets it: unhandled rejections are logged and dropped, never fatal (process-guard.ts). */
  processGuard?: boolean;
  /** How often to look for a model server while none answers (default 10 s). */
  modelProbeIntervalMs?: number;
}

export async function startApp(options: StartAppOptions): Promise<RunningApp> {
  // Before the store is opened (recovery included): a second start must not expire the first one's approvals.
  // Replicas on Redis share state by design: there each one's lease protects its runs instead.
  const lock = isRedisUrl(options.config.storeUrl) ? { release: () => undefined } : acquireDataFolderLock(options.config.dataDirectory);
  // What a start that fails half-way has opened, closed in reverse before the error goes up.
  const opened: (() => unknown)[] = [];
  try {
    await checkPortFree(options.config.httpPort, options.config.httpHost);
    const app = await startLocked(options, opened);
    return {
      ...app,
      async stop() {
        try {
          await app.stop();
        } finally {
          lock.release();
        }
      },
    };
  } catch (error) {
    for (const close of opened.reverse())
      await Promise.resolve()
        .then(close)
        .catch((closeError: unknown) => closeError);
    lock.release();
    throw error;
  }
}

async function startLocked(options: StartAppOptions, opened: (() => unknown)[]): Promise<RunningApp> {
  const { config, io } = options;
  const maskSecrets = createConfigMasker(config);
  const format = resolveLogFormat(config.logFormat, io.interactive);
  const logger = createLogger({ format, level: config.logLevel, maskSecrets, write: io.stderr });
  const announce = createAnnouncer(format, io.stdout);
  const removeGuard = options.processGuard ? installProcessGuard(logger) : () => undefined;
  opened.push(removeGuard);
  const engine = await createEngine({ config, logger, maskSecrets, fetch: options.fetch, model: options.model, checkDefaultCharacter: true });
  opened.push(() => engine.close());
  // Before any adapter takes an event: only what the previous process left behind is interrupted or
  // expired. With replicas, the runs of replicas whose lease expired are recovered by the watch
  // started below (its first pass once the adapters can post, then every heartbeat).
  const shared = engine.coordination.shared;
  const recovery = shared
    ? undefined
    : await recoverAfterRestart({
        runs: engine.runs,
        approvals: engine.approvals,
        // A `tsuka ask` still working on this host keeps its run.
        stillRunning: (owner) => ownerProcessAlive(owner, replicaHost(), process.pid),
      });
  const stopRetention = await startRetention({
    store: engine.store,
    retentionDays: config.retentionDays,
    auditRetentionDays: config.auditRetentionDays,
    logger,
  });
  opened.push(stopRetention);
  const models = createModelControl(engine, {
    fetch: options.fetch,
    probeIntervalMs: options.modelProbeIntervalMs,
    onConnected: (description) => announce(`${description} — found after start.`),
  });
  opened.push(() => models.stop());
  // `/metrics` and traces: the command layer gets the run store, approvals and model observed.
  const telemetry = await startTelemetry({ config, engine, models, logger });
  opened.push(() => telemetry.stop());
  const deps = commandDependencies(telemetry.engine, telemetry.models);
  const layer = createCommandLayer(deps, createWorkflows(deps, { teamMaxRounds: config.teamMaxRounds, goalConfirm: config.goalConfirm }));
  const surfaces: Partial<Record<Platform, ChatSurface>> = {};
  // Replicas spend one set of platform budgets, kept in Redis: two never send more than one would.
  const sharedBudget = shared ? (name: string, rule: RateRule) => engine.coordination.takeToken(name, rule) : undefined;
  const stoppers: (() => Promise<void>)[] = [];

  const slack = config.slack ? await openSlackAdapter(config.slack, { config, options, engine, layer, logger, sharedBudget }) : undefined;
  if (slack) surfaces.slack = slack.surface;
  const discord = config.discord ? await openDiscordAdapter(config.discord, { config, options, engine, layer, logger, sharedBudget }) : undefined;
  if (discord) surfaces.discord = discord.surface;
  let playground: PlaygroundAdapter | undefined;
  if (!config.slack && !config.discord) {
    const { createPlaygroundAdapter } = await import('../adapters/playground/index.js');
    playground = createPlaygroundAdapter({
      handle: layer.handle,
      logger,
      // A local page has no edit budget: replies stream at the page's own pace.
      editIntervalMs: PLAYGROUND_EDIT_INTERVAL_MS,
      persistence: createPlaygroundPersistence(engine.store.namespace('playground'), { logger }),
      limiter: options.playgroundLimiter,
      modelStatus: () => {
        const current = models.current();
        return current ? { ok: true, message: `${current.model.modelId} on ${current.providerName}` } : { ok: false, message: models.unavailableMessage() };
      },
    });
    surfaces.playground = playground.surface;
  }
  const http = await startHttpServer({
    port: config.httpPort,
    host: config.httpHost,
    logger,
    routes: {
      ...(slack?.httpHandler ? { 'POST /slack/events': slack.httpHandler } : {}),
      ...playground?.routes,
      // The characters' pictures (Discord and Slack fetch them under TSUKA_PUBLIC_URL; the playground shows them).
      ...avatarRoutes(engine.roster, logger),
      ...telemetry.routes,
    },
    health: () => ({ ok: true }),
    ready: async () => {
      const checks = {
        slack: slack ? slack.connected() : 'off',
        discord: discord ? (gateway && !gateway.isLeader ? 'standby' : discord.connected()) : 'off',
        store: await engine.store
          .namespace<number>('health')
          .set('ready-check', Date.now())
          .then(
            () => true,
            () => false,
          ),
        model: models.current()?.model.modelId ?? null,
        modelReachable: await models.reachable(),
        modelStatus: models.describe(),
        // Each model server: up or down (skipped until a probe finds it), generation slots in use of its capacity.
        modelServers: await models.servers(),
        // Redis only: a Redis that came back empty is said here in those words (issue 41).
        ...(engine.coordination.storeHealth ? { redis: engine.coordination.storeHealth.describe() ?? 'holds its store marker' } : {}),
      };
      return { ready: checks.slack !== false && checks.discord !== false && checks.store && checks.model !== null && checks.modelReachable, checks };
    },
  });

  opened.push(() => http.close());
  if (slack) {
    opened.push(() => slack!.stop());
    await slack.start();
    stoppers.push(() => slack!.stop());
  }
  let gateway: Leadership | undefined;
  if (discord && shared) {
    // One replica at a time holds the gateway (two sessions on one shard would both get every event);
    // the others post over REST and take the gateway over when its holder's leadership lapses.
    const adapter = discord;
    opened.push(() => adapter.stop());
    await adapter.standby();
    gateway = engine.coordination.lead('discord-gateway', (leader) => {
      void (leader ? adapter.start() : adapter.stopGateway()).catch((error: unknown) =>
        logger.error(leader ? 'could not open the Discord gateway after taking it over' : 'could not close the Discord gateway', { error }),
      );
    });
    stoppers.push(async () => {
      await gateway?.stop();
      await adapter.stop();
    });
  } else if (discord) {
    opened.push(() => discord!.stop());
    await discord.start().catch(async (error: unknown) => {
      await discord!.stop().catch(() => undefined);
      throw error;
    });
    stoppers.push(() => discord!.stop());
  }
  if (playground) {
    await playground.start();
    stoppers.push(() => playground!.stop());
  }
  // After the adapters start: Discord's REST client and webhooks exist only once logged in.
  if (recovery) await tellInterruptedThreads(engine, surfaces, recovery, 'restart');
  const stopWatch = shared ? await watchReplicas(engine, surfaces, layer, config.replicaHeartbeatMs) : () => undefined;
  opened.push(stopWatch);
  // After recovery: a run missed while no process was up fires once now.
  const stopSchedules = startSchedules(engine, layer, surfaces, deps);
  opened.push(stopSchedules);
  const playgroundUrl = `http://127.0.0.1:${http.port}/`;
  // The key is in the link only (on this terminal, never in the log): the page cannot be used without it.
  if (playground)
    announce(
      `No SLACK_BOT_TOKEN or DISCORD_BOT_TOKEN is set: starting the local playground. Open ${playgroundStartUrl(http.port, playground.accessKey)} in a browser (the link carries this start's access key; keep it to yourself).`,
    );
  announce(
    `TSUKA is running: ${[slack ? 'Slack' : undefined, discord ? `Discord${discord.messageContent() ? '' : ' (no Message Content intent: follow-ups need a mention)'}` : undefined, playground ? `playground on ${playgroundUrl}` : undefined].filter(Boolean).join(', ') || 'no chat adapter'} · health on http://127.0.0.1:${http.port}/healthz`,
  );
  announce(models.describe());
  announce(engine.sandbox.summary);
  for (const line of engine.sandbox.details ?? []) announce(line);
  const storeHealth = engine.coordination.storeHealth;
  if (storeHealth) announce(`Redis: ${describePersistence(await storeHealth.persistence()).text}`);

  return {
    engine,
    layer,
    surfaces,
    http,
    async stop() {
      models.stop();
      stopRetention();
      stopWatch();
      stopSchedules();
      await layer.stopAll();
      for (const stop of stoppers.reverse()) await stop().catch((error: unknown) => logger.error('adapter stop failed', { error }));
      await http.close();
      await telemetry.stop();
      await engine.close();
      removeGuard();
    },
  };
}

/** What opening a platform's adapter takes (each is loaded only when configured: a Slack-only bot never loads discord.js). */
interface AdapterContext {
  config: AppConfig;
  options: StartAppOptions;
  engine: Engine;
  layer: CommandLayer;
  logger: Parameters<typeof createSlackAdapter>[0]['logger'];
  sharedBudget: Parameters<typeof createSlackAdapter>[0]['sharedBudget'];
}

async function openDiscordAdapter(discordConfig: NonNullable<AppConfig['discord']>, context: AdapterContext): Promise<DiscordAdapter> {
  const { config, options, engine } = context;
  const { createDiscordAdapter } = await import('../adapters/discord/index.js');
  return createDiscordAdapter({
    config: discordConfig,
    handle: context.layer.handle,
    logger: context.logger,
    editIntervalMs: config.streamEditIntervalMs,
    plainMentions: config.plainMentions,
    pacing: options.discordPacing,
    sharedBudget: context.sharedBudget,
    // A character without a picture URL gets a webhook of its own carrying its picture.
    pictures: characterPictures(engine.roster),
  });
}

async function openSlackAdapter(slackConfig: NonNullable<AppConfig['slack']>, context: AdapterContext): Promise<SlackAdapter> {
  const { config, options, engine } = context;
  const { createSlackAdapter } = await import('../adapters/slack/index.js');
  return createSlackAdapter({
    config: slackConfig,
    handle: context.layer.handle,
    logger: context.logger,
    editIntervalMs: config.streamEditIntervalMs,
    plainMentions: config.plainMentions,
    retries: options.slackRetries,
    rateLimits: options.slackRateLimits,
    sharedBudget: context.sharedBudget,
    assistantPrompts: () => suggestedPrompts(engine.roster, config.defaultCharacter),
    state: engine.store,
  });
}
