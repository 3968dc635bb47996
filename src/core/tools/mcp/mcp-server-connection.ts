/**
 * One MCP server: connects (stdio or Streamable HTTP), lists its tools, calls them, follows
 * `notifications/tools/list_changed`, and when it cannot start or dies, withdraws its tools, logs it
 * and restarts it with exponential backoff until closed.
 */
import { existsSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { TsukaError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { JsonSchema } from '../../model/language-model.js';
import type { McpServerConfig } from './mcp-config.js';
import type { McpCallResult } from './mcp-result.js';
import { launchStdioServer, type LaunchStdioServer } from './launch-stdio-server.js';
import { failureWords } from './mcp-failure-words.js';
import { createRefreshCoalescer } from './mcp-refresh-coalescer.js';

export type McpServerState = 'starting' | 'ready' | 'failed' | 'closed';

export interface McpToolInfo {
  name: string;
  description?: string;
  inputSchema: JsonSchema;
}

export interface McpServerStatus {
  name: string;
  /** `stdio: npx -y server` or `http: https://host/mcp` (no query string). */
  endpoint: string;
  state: McpServerState;
  tools: McpToolInfo[];
  /** Why the server is not ready, when it failed. */
  error?: string;
  /** Failed attempts since the server was last up for a while. */
  failures: number;
}

export interface McpBackoff {
  initialMs: number;
  maxMs: number;
}

export const MCP_DEFAULT_BACKOFF: McpBackoff = { initialMs: 1000, maxMs: 60_000 };
/** A connection that stayed up this long resets the backoff. */
const STABLE_AFTER_MS = 30_000;
/** `tools/list_changed` notifications within this window become one refresh. */
export const MCP_REFRESH_DEBOUNCE_MS = 200;
const STDERR_TAIL_CHARS = 2000;

export interface McpServerConnectionOptions {
  config: McpServerConfig;
  /** The scrubbed child environment; the entry's `env` is added on top. */
  baseEnv: Record<string, string>;
  /** cwd of stdio servers whose entry names none. */
  workingDirectory: string;
  logger: Logger;
  /** Called whenever the server's tools or state change. */
  onChange(): void;
  launchStdio?: LaunchStdioServer;
  fetch?: typeof fetch;
  backoff?: McpBackoff;
  clientVersion?: string;
  /** `tools/list_changed` notifications are coalesced over this window (default 200 ms). */
  refreshDebounceMs?: number;
}

/** An MCP tool call failed because the server is not there (not because the tool said no). */
export class McpServerUnavailableError extends TsukaError {
  constructor(
    readonly server: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super('mcp_server_unavailable', message, options);
  }
}

export interface McpServerConnection {
  readonly name: string;
  /** Resolves after the first attempt, whether it worked or not (a failure schedules a restart). */
  start(): Promise<void>;
  status(): McpServerStatus;
  callTool(tool: string, input: Record<string, unknown>, signal: AbortSignal): Promise<McpCallResult>;
  close(): Promise<void>;
}

export function createMcpServerConnection(options: McpServerConnectionOptions): McpServerConnection {
  const { config, logger } = options;
  const backoff = options.backoff ?? MCP_DEFAULT_BACKOFF;
  const log = logger.child({ mcpServer: config.name });
  let state: McpServerState = 'starting';
  let tools: McpToolInfo[] = [];
  let error: string | undefined;
  let failures = 0;
  let readySince: number | undefined;
  let client: Client | undefined;
  /** The client of the attempt still connecting (closed too when the connection is closed). */
  let connecting: Client | undefined;
  let restartTimer: NodeJS.Timeout | undefined;
  const refresh = createRefreshCoalescer(options.refreshDebounceMs ?? MCP_REFRESH_DEBOUNCE_MS);
  let stderrTail = '';
  /** What the launcher said it could not show the server (hidden paths its entry names). */
  let launchNotes: string[] = [];
  /** Bumped on every attempt, so callbacks of an old connection are ignored. */
  let generation = 0;

  const endpoint = config.transport === 'stdio' ? `stdio: ${[config.command, ...config.args].join(' ')}` : `http: ${config.url.split('?')[0]}`;

  function createTransport(): Transport {
    if (config.transport === 'http') {
      return new StreamableHTTPClientTransport(new URL(config.url), {
        requestInit: { headers: config.headers },
        ...(options.fetch ? { fetch: options.fetch } : {}),
      });
    }
    const cwd = config.cwd ?? options.workingDirectory;
    // spawn reports a missing cwd as ENOENT of the command, which sends people looking in the wrong place.
    if (!existsSync(cwd)) throw new TsukaError('mcp_cwd_missing', `its working directory ${cwd} does not exist`);
    const launched = (options.launchStdio ?? launchStdioServer)({
      command: config.command,
      args: config.args,
      env: { ...options.baseEnv, ...config.env },
      cwd,
      sandbox: config.sandbox,
      name: config.name,
    });
    launchNotes = launched.notes ?? [];
    stderrTail = '';
    launched.stderr?.on('data', (chunk: Buffer | string) => {
      stderrTail = (stderrTail + chunk.toString()).slice(-STDERR_TAIL_CHARS);
    });
    return launched.transport;
  }

  const stderrReason = (): string => failureWords(stderrTail, launchNotes);

  async function refreshTools(current: Client, attempt: number): Promise<void> {
    const listed: McpToolInfo[] = [];
    let cursor: string | undefined;
    do {
      const page = await current.listTools(cursor ? { cursor } : undefined, { timeout: config.timeoutMs });
      for (const tool of page.tools) {
        listed.push({ name: tool.name, ...(tool.description ? { description: tool.description } : {}), inputSchema: tool.inputSchema as JsonSchema });
      }
      cursor = page.nextCursor;
    } while (cursor);
    if (attempt !== generation || state === 'closed') return;
    tools = listed;
    options.onChange();
  }

  function fail(reason: string, attempt: number): void {
    if (attempt !== generation || state === 'closed' || state === 'failed') return;
    if (readySince !== undefined && Date.now() - readySince >= STABLE_AFTER_MS) failures = 0;
    readySince = undefined;
    failures += 1;
    state = 'failed';
    error = reason;
    tools = [];
    refresh.cancel();
    const current = client;
    client = undefined;
    void current?.close().catch((closeError: unknown) => log.debug('closing a failed MCP client failed', { error: String(closeError) }));
    const delayMs = Math.min(backoff.initialMs * 2 ** (failures - 1), backoff.maxMs);
    log.warn('MCP server unavailable; its tools are withdrawn', { reason, restartInMs: delayMs, failures });
    options.onChange();
    restartTimer = setTimeout(() => {
      restartTimer = undefined;
      void connect();
    }, delayMs);
    restartTimer.unref();
  }

  async function connect(): Promise<void> {
    if (state === 'closed') return;
    const attempt = ++generation;
    state = 'starting';
    const next = new Client({ name: 'tsuka', version: options.clientVersion ?? '0.1.0' }, { capabilities: {} });
    // A flood of list_changed is one refresh in flight and at most one queued, after a short quiet spell.
    next.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      refresh.request(async () => {
        if (attempt !== generation) return;
        log.info('MCP server changed its tools');
        try {
          await refreshTools(next, attempt);
        } catch (refreshError) {
          fail(`listing its tools failed (${describe(refreshError)})`, attempt);
        }
      });
    });
    // While starting, a failed connect or list reports the better reason; after that, a close is a death.
    next.onclose = () =>
      state === 'ready' && fail(`the server ${config.transport === 'stdio' ? 'process exited' : 'closed the connection'}${stderrReason()}`, attempt);
    connecting = next;
    try {
      const transport = createTransport();
      await next.connect(transport, { timeout: config.timeoutMs });
      if (attempt !== generation || (state as McpServerState) === 'closed') {
        await next.close();
        return;
      }
      connecting = undefined;
      client = next;
      await refreshTools(next, attempt);
      if (attempt !== generation || state !== 'starting') return;
      state = 'ready';
      error = undefined;
      readySince = Date.now();
      log.info('MCP server ready', { tools: tools.length });
      options.onChange();
    } catch (connectError) {
      const connected = client === next;
      fail(`it could not start: ${describe(connectError)}${stderrReason()}`, attempt);
      // An attempt that never connected still has its process (or session): end it, a mute server included.
      if (!connected)
        void next.close().catch((closeError: unknown) => log.debug('closing an MCP client that did not start failed', { error: String(closeError) }));
    } finally {
      if (connecting === next) connecting = undefined;
    }
  }

  return {
    name: config.name,
    start: () => connect(),
    status: () => ({ name: config.name, endpoint, state, tools: [...tools], ...(error ? { error } : {}), failures }),

    async callTool(tool, input, signal) {
      const current = client;
      const attempt = generation;
      if (!current || state !== 'ready') {
        throw new McpServerUnavailableError(config.name, unavailableSentence(config.name, error));
      }
      // The SDK leaves its abort listener on the signal it is given; one turn makes many calls, so
      // each call gets its own signal, linked to the turn's only while the call runs.
      const callAbort = new AbortController();
      const forwardAbort = (): void => callAbort.abort(signal.reason);
      if (signal.aborted) callAbort.abort(signal.reason);
      else signal.addEventListener('abort', forwardAbort, { once: true });
      try {
        return (await current.callTool({ name: tool, arguments: input }, undefined, { signal: callAbort.signal, timeout: config.timeoutMs })) as McpCallResult;
      } catch (callError) {
        if (signal.aborted) throw callError;
        if (callError instanceof McpError && callError.code === ErrorCode.RequestTimeout) {
          throw new TsukaError('mcp_tool_timeout', `${tool} on the MCP server "${config.name}" did not answer within ${config.timeoutMs / 1000} s.`, {
            cause: callError,
          });
        }
        if (callError instanceof McpError && callError.code !== ErrorCode.ConnectionClosed) {
          throw new TsukaError('mcp_tool_failed', `${tool} on the MCP server "${config.name}" failed: ${callError.message}`, { cause: callError });
        }
        // The connection itself broke (process gone, HTTP server unreachable): withdraw and restart.
        fail(`the server stopped answering (${describe(callError)})${stderrReason()}`, attempt);
        throw new McpServerUnavailableError(
          config.name,
          `The MCP server "${config.name}" stopped during the call to ${tool}; its tools are withdrawn until it restarts (automatically). Do not call them now.`,
          { cause: callError },
        );
      } finally {
        signal.removeEventListener('abort', forwardAbort);
      }
    },

    async close() {
      state = 'closed';
      generation += 1;
      if (restartTimer) clearTimeout(restartTimer);
      restartTimer = undefined;
      refresh.cancel();
      tools = [];
      const current = client;
      const pending = connecting;
      client = connecting = undefined;
      // The attempt still connecting (a mute server) is ended too, so nothing waits for its timeout;
      // it never finished its handshake, so its process gets no grace period to shut down.
      if (pending) stopAtOnce(pending, log);
      await Promise.all([current?.close(), pending?.close()]);
    },
  };
}

/** Sends SIGTERM to a stdio server's process (HTTP servers have none). */
function stopAtOnce(client: Client, log: Logger): void {
  const pid = (client.transport as { pid?: number | null } | undefined)?.pid;
  if (typeof pid !== 'number') return;
  try {
    process.kill(pid, 'SIGTERM');
  } catch (error) {
    // Already gone (ESRCH): nothing to stop.
    log.debug('stopping an MCP server that never answered failed', { error: String(error) });
  }
}

/** What the model reads when it calls a tool of a server that is down. */
export function unavailableSentence(server: string, reason: string | undefined): string {
  return `The MCP server "${server}" is not available${reason ? ` (${reason})` : ''}; its tools are withdrawn until it restarts (automatically, with backoff). Do not call them now; answer without them or tell the user.`;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
