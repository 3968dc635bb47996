/**
 * The Slack adapter: Bolt in Socket Mode when an app token is set (no public URL needed),
 * otherwise the HTTP Events API with signatures checked (stale and future timestamps rejected).
 */
import { App, HTTPReceiver, LogLevel, SocketModeReceiver, type Logger as BoltLogger } from '@slack/bolt';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SlackConfig } from '../../config/app-config.js';
import type { ChatSurface } from '../../commands/chat-surface.js';
import type { InboundEvent } from '../../commands/inbound-event.js';
import type { Logger } from '../../core/logger.js';
import { registerSlackListeners } from './events.js';
import { createSlackSurface } from './surface.js';
import { createSlackCallLimiter, SLACK_DEFAULT_RATE_LIMITS, type SlackRateLimits } from './rate-limits.js';
import { verifySlackSignature } from './signature.js';
import { guardSocketModeEnvelopes } from './envelope-guard.js';
import { createSlackCaller } from './call-budget.js';
import { createAssistantThreads } from './assistant-threads.js';
import { createAppContexts, SLACK_APP_CONTEXT_NAMESPACE, SLACK_VIEWS_NAMESPACE } from './app-context.js';
import type { KeyValueNamespace } from '../../core/store/key-value-namespace.js';
import type { SuggestedPrompt } from '../../commands/turns/assistant-prompts.js';
import type { SharedBudget } from '../shared/call-budget.js';
import { nodeHttpFetch } from '../../core/http/node-http-fetch.js';

export interface SlackAdapterOptions {
  config: SlackConfig;
  handle: (event: InboundEvent, surface: ChatSurface) => Promise<void>;
  logger: Logger;
  editIntervalMs: number;
  plainMentions: boolean;
  rateLimits?: Partial<SlackRateLimits>;
  /** With replicas: budgets shared through Redis (the coordination's `takeToken`). */
  sharedBudget?: SharedBudget;
  /** Web client retries of its own (default 0: the call limiter retries 429, 5xx and network errors within its budget). */
  retries?: number;
  /** Use Slack's streaming methods for replies where the workspace offers them (default true). */
  streaming?: boolean;
  /** The suggested prompts of a new assistant thread (DMs with the app): the characters. */
  assistantPrompts?: () => SuggestedPrompt[];
  /** Where the agent view's state is kept (what each person looks at; which view's events arrived): the store. */
  state?: { namespace<T>(name: string): KeyValueNamespace<T> };
}

export interface SlackAdapter {
  readonly surface: ChatSurface;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** HTTP mode only: the handler for POST /slack/events, mounted by the app's HTTP server. */
  readonly httpHandler?: (request: IncomingMessage, response: ServerResponse) => void;
  readonly connected: () => boolean;
  readonly rateLimitedCount: () => number;
}

function boltLogger(logger: Logger): BoltLogger {
  const child = logger.child({ component: 'bolt' });
  return {
    debug: (...args: unknown[]) => child.debug(args.map(String).join(' ')),
    info: (...args: unknown[]) => child.debug(args.map(String).join(' ')),
    warn: (...args: unknown[]) => child.warn(args.map(String).join(' ')),
    error: (...args: unknown[]) => child.error(args.map(String).join(' ')),
    setLevel: () => undefined,
    getLevel: () => LogLevel.INFO,
    setName: () => undefined,
  };
}

export function createSlackAdapter(options: SlackAdapterOptions): SlackAdapter {
  const { config, logger } = options;
  const clientOptions = {
    slackApiUrl: config.apiUrl,
    rejectRateLimitedCalls: true,
    retryConfig: { retries: options.retries ?? 0 },
    // Web API calls over node:http rather than Node's fetch: a burst of replies spent its time in
    // undici's web streams (docs/benchmarks/engine-per-round.md).
    fetch: nodeHttpFetch,
  };
  const socketMode = Boolean(config.appToken);
  const receiver = socketMode
    ? undefined
    : new HTTPReceiver({ signingSecret: config.signingSecret ?? '', endpoints: '/slack/events', logger: boltLogger(logger) });
  // Our own Socket Mode receiver (as Bolt would build it) so that its client can be guarded. Without
  // retryConfig, its client keeps its own patient retries of apps.connections.open when reconnecting.
  const socketReceiver = socketMode
    ? new SocketModeReceiver({
        appToken: config.appToken ?? '',
        logger: boltLogger(logger),
        installerOptions: { clientOptions: { slackApiUrl: config.apiUrl } },
      })
    : undefined;
  if (socketReceiver) guardSocketModeEnvelopes(socketReceiver.client, logger.child({ component: 'slack-socket' }));
  const app = new App({
    token: config.botToken,
    ...(socketReceiver ? { receiver: socketReceiver } : { receiver }),
    clientOptions,
    // Bolt's conversation store (context.conversation) is unused here and costs a lookup per event.
    convoStore: false,
    logger: boltLogger(logger),
  });
  const limits = { ...SLACK_DEFAULT_RATE_LIMITS, ...options.rateLimits };
  // Pacing is the call budget's (per method, priorities, coalescing); the limiter stays underneath
  // for retries and Retry-After, which pauses the method that met the 429 and nothing else.
  const limiter = createSlackCallLimiter(limits, logger);
  const caller = createSlackCaller(limits, limiter, options.editIntervalMs, options.sharedBudget);
  let botUserId = '';
  let botId = '';
  const surface = createSlackSurface({
    client: app.client,
    caller,
    editIntervalMs: options.editIntervalMs,
    logger,
    streaming: options.streaming,
    files: { botToken: config.botToken, apiUrl: config.apiUrl },
    bot: () => ({ userId: botUserId, botId }),
  });
  let connected = false;
  const appContexts = options.state
    ? createAppContexts({ contexts: options.state.namespace(SLACK_APP_CONTEXT_NAMESPACE), views: options.state.namespace(SLACK_VIEWS_NAMESPACE), logger })
    : undefined;
  registerSlackListeners({
    app,
    botUserId: () => botUserId,
    plainMentions: options.plainMentions,
    dispatch: (event) => options.handle(event, surface),
    surface,
    removeButtons: surface.removeButtons,
    logger,
    assistant: createAssistantThreads({ client: app.client, caller, logger, prompts: options.assistantPrompts ?? (() => []) }),
    ...(appContexts ? { appContexts } : {}),
  });
  app.error(async (error) => {
    logger.error('Slack listener error', { error });
  });

  const httpHandler = receiver
    ? (request: IncomingMessage, response: ServerResponse) => {
        verifySlackSignature(request, config.signingSecret ?? '').then(
          (verdict) => {
            if (!verdict.ok) {
              logger.warn('Slack request refused', { reason: verdict.reason });
              response.writeHead(401, { 'content-type': 'text/plain' }).end(verdict.reason);
              return;
            }
            receiver.requestListener(request, response);
          },
          (error: unknown) => {
            logger.error('Slack request could not be read', { error });
            response.writeHead(400).end();
          },
        );
      }
    : undefined;

  return {
    surface,
    httpHandler,
    connected: () => connected,
    rateLimitedCount: () => limiter.rateLimitedCount,
    async start() {
      const identity = await limiter.schedule('auth.test', undefined, () => app.client.auth.test());
      botUserId = String(identity.user_id ?? '');
      botId = String(identity.bot_id ?? '');
      // HTTP mode: Bolt initialised in its constructor; requests arrive through httpHandler on our own server.
      if (socketMode) await app.start();
      connected = true;
      logger.info('Slack connected', { mode: socketMode ? 'socket' : 'http', botUserId, team: identity.team });
      await appContexts?.atStart();
    },
    async stop() {
      connected = false;
      caller.budget.stop();
      await limiter.stop();
      if (socketMode) {
        await app.stop();
        // Bolt's stop() does not wait for the socket to close (platform notes): disconnect explicitly.
        await socketReceiver?.client.disconnect().catch(() => undefined);
      }
    },
  };
}
