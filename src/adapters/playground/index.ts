/**
 * The local playground: a web chat on the app's HTTP server (127.0.0.1:TSUKA_HTTP_PORT) that
 * `tsuka start` opens when no platform is configured. It is a third chat platform, not a demo:
 * the same command layer, the same surface port, the same inbound events as Slack and Discord.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ChatSurface } from '../../commands/chat-surface.js';
import type { InboundEvent } from '../../commands/inbound-event.js';
import type { Logger } from '../../core/logger.js';
import { createAccessKey } from './access-key.js';
import { createPlaygroundInput } from './events.js';
import { createInputLimiter, type InputLimiter } from './rate-limits.js';
import { createPlaygroundRoutes } from './routes.js';
import { createPlaygroundState, type PlaygroundState } from './state.js';
import { createPlaygroundSurface } from './surface.js';
import type { PlaygroundPersistence } from './persistence.js';

/** How often the page's model banner is checked against the model's state (an in-memory read). */
const MODEL_WATCH_MS = 1_000;

export interface PlaygroundAdapterOptions {
  handle: (event: InboundEvent, surface: ChatSurface) => Promise<void>;
  logger: Logger;
  editIntervalMs: number;
  /** Shown as a banner on the page when `ok` is false (how to start a model server). */
  modelStatus: () => { ok: boolean; message: string };
  /** Keeps the chat across restarts (the app passes one on the store); without it the chat is in memory only. */
  persistence?: PlaygroundPersistence;
  /** The input limit (default `createInputLimiter()`); tests sharing one app give each test a fresh window. */
  limiter?: InputLimiter;
}

export interface PlaygroundAdapter {
  readonly surface: ChatSurface;
  /** Mounted on the app's HTTP server: `'GET /'`, `'GET /events'`, `'POST /api/messages'`, … */
  readonly routes: Record<string, (request: IncomingMessage, response: ServerResponse) => void>;
  /** The in-memory chat, for tests and the contract suite. */
  readonly state: PlaygroundState;
  /** This start's access key (access-key.ts): only the start link prints it; held in memory only. */
  readonly accessKey: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createPlaygroundAdapter(options: PlaygroundAdapterOptions): PlaygroundAdapter {
  const logger = options.logger.child({ component: 'playground' });
  const state = createPlaygroundState();
  const surface = createPlaygroundSurface({ state, editIntervalMs: options.editIntervalMs });
  const input = createPlaygroundInput({ state, dispatch: (event) => options.handle(event, surface), logger });
  const accessKey = createAccessKey();
  const http = createPlaygroundRoutes({ state, input, modelStatus: options.modelStatus, limiter: options.limiter ?? createInputLimiter(), logger, accessKey });
  let started = false;
  let unsubscribe: (() => void) | undefined;
  let modelWatch: NodeJS.Timeout | undefined;

  return {
    surface,
    routes: http.routes,
    state,
    accessKey,
    async start() {
      const persistence = options.persistence;
      if (persistence) {
        state.restore(await persistence.load());
        unsubscribe = state.subscribe((change) => persistence.record(change, (id) => state.file(id)?.content));
      }
      // The banner follows the model on the page's live channel: it clears when a server comes up (issue 40).
      state.setModel(options.modelStatus());
      modelWatch = setInterval(() => state.setModel(options.modelStatus()), MODEL_WATCH_MS);
      modelWatch.unref();
      started = true;
      logger.info('playground ready');
    },
    async stop() {
      if (!started) return;
      started = false;
      clearInterval(modelWatch);
      // Open event streams would keep the server's close() waiting.
      http.closeStreams();
      unsubscribe?.();
      await options.persistence?.flush().catch((error: unknown) => logger.warn('could not keep the playground chat', { error }));
    },
  };
}
