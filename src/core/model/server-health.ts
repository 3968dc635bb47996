/**
 * Which of several model servers answer. A server that fails before its first token (connection
 * refused or reset, a timeout, a 5xx) is marked down and no longer offered for generation slots;
 * `probeDown()` asks each down server again (the caller decides when: every 10 s, at a mention) and
 * marks it up when it answers. Listeners hear every change, so waiting requests can be dispatched
 * again over the servers that are up now.
 */
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';

/** One server's state as `/readyz` and doctor show it. */
export interface ServerState {
  server: string;
  up: boolean;
  /** When it went down (ms since epoch); undefined while up. */
  downSince?: number;
  /** Why it was marked down (one sentence). */
  reason?: string;
}

export interface ServerHealth {
  /** Every server, in configured order. */
  readonly servers: readonly string[];
  /** The servers that answer, in configured order. */
  up(): string[];
  isUp(server: string): boolean;
  anyDown(): boolean;
  markDown(server: string, reason?: unknown): void;
  /** Probes every down server now (one probe per server at a time); resolves when all answered or failed. */
  probeDown(): Promise<void>;
  states(): ServerState[];
  /** Called after every change (a server down or up again); returns the unsubscribe function. */
  onChange(listener: () => void): () => void;
}

export interface ServerHealthOptions {
  servers: readonly string[];
  /** Servers that did not answer at start. */
  down?: readonly string[];
  /** True when the server answers (e.g. `GET /v1/models`); must not throw. */
  probe: (server: string) => Promise<boolean>;
  logger?: Logger;
  now?: () => number;
}

export function createServerHealth(options: ServerHealthOptions): ServerHealth {
  const logger = options.logger ?? silentLogger;
  const now = options.now ?? Date.now;
  const down = new Map<string, { since: number; reason?: string }>();
  for (const server of options.down ?? []) down.set(server, { since: now(), reason: 'did not answer at start' });
  const listeners = new Set<() => void>();
  const probing = new Map<string, Promise<void>>();
  const changed = () => {
    for (const listener of [...listeners]) listener();
  };

  const probeOne = (server: string): Promise<void> => {
    const running = probing.get(server);
    if (running) return running;
    const probe = (async () => {
      try {
        const answers = await options.probe(server).catch(() => false);
        if (!answers || !down.has(server)) return;
        down.delete(server);
        logger.info('model server answers again', { server });
        changed();
      } finally {
        probing.delete(server);
      }
    })();
    probing.set(server, probe);
    return probe;
  };

  return {
    servers: options.servers,
    up: () => options.servers.filter((server) => !down.has(server)),
    isUp: (server) => !down.has(server),
    anyDown: () => down.size > 0,
    markDown(server, reason) {
      if (down.has(server) || !options.servers.includes(server)) return;
      const text = describe(reason);
      down.set(server, { since: now(), reason: text });
      logger.warn('model server marked down', { server, reason: text });
      changed();
    },
    async probeDown() {
      await Promise.all([...down.keys()].map(probeOne));
    },
    states: () =>
      options.servers.map((server) => {
        const state = down.get(server);
        return state ? { server, up: false, downSince: state.since, reason: state.reason } : { server, up: true };
      }),
    onChange(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}

function describe(reason: unknown): string | undefined {
  if (reason === undefined) return undefined;
  return reason instanceof Error ? reason.message : String(reason);
}
