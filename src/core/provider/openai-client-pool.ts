/**
 * One `openai` client per model server, shared by every model on it: the endpoint models of a
 * server (one per model id, a new one at each `/tsuka model` switch) and every request of each.
 * The client holds no per-request state; timeouts and signals go with each request. Connections
 * are kept alive by the transport underneath (`core/http/node-http-fetch.ts`: keep-alive agents, one pool per
 * origin), which carries the few kilobytes of a tool round without `fetch`'s web-stream wrapping.
 */
import { OpenAI } from 'openai';
import { nodeHttpFetch } from '../http/node-http-fetch.js';
import { withReadableErrors } from './readable-error-fetch.js';

/** Local servers ignore the key, but the client insists on one. */
const PLACEHOLDER_API_KEY = 'not-needed';
/** Requests pass their own timeout; this only bounds a request that passed none. */
const CLIENT_DEFAULT_TIMEOUT_MS = 601_000;

/** Which server, with which key and transport. */
export interface OpenAIClientKey {
  /** Base URL including `/v1`. */
  baseURL: string;
  apiKey?: string;
  fetch?: typeof fetch;
}

/** The clients made so far, one per server, key and fetch. */
export interface OpenAIClientPool {
  clientFor(key: OpenAIClientKey): OpenAI;
  /** How many clients exist (one per server in normal use). */
  readonly size: number;
}

/** Creates an empty pool. */
export function createOpenAIClientPool(): OpenAIClientPool {
  // Per fetch implementation (tests inject their own), then per server and key.
  const byFetch = new Map<typeof fetch, Map<string, OpenAI>>();
  let size = 0;
  return {
    clientFor({ baseURL, apiKey, fetch: fetchImplementation = nodeHttpFetch }) {
      let clients = byFetch.get(fetchImplementation);
      if (!clients) {
        clients = new Map();
        byFetch.set(fetchImplementation, clients);
      }
      const name = `${baseURL}\u0000${apiKey ?? ''}`;
      let client = clients.get(name);
      if (!client) {
        client = new OpenAI({
          apiKey: apiKey || PLACEHOLDER_API_KEY,
          baseURL,
          // Explicit nulls keep the client from reading OPENAI_* variables of the environment.
          organization: null,
          project: null,
          webhookSecret: null,
          fetch: withReadableErrors(fetchImplementation),
          maxRetries: 0,
          timeout: CLIENT_DEFAULT_TIMEOUT_MS,
          logLevel: 'off',
        });
        clients.set(name, client);
        size += 1;
      }
      return client;
    },
    get size() {
      return size;
    },
  };
}

/**
 * The pool models use when given none: like the fetch's own connection pool, one per process, so
 * that every model on a server shares one client whoever created it.
 */
export const sharedOpenAIClients: OpenAIClientPool = createOpenAIClientPool();
