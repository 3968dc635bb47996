/**
 * A real HTTP server on 127.0.0.1 speaking enough of the OpenAI API for end-to-end tests:
 * `GET /v1/models` and streaming `POST /v1/chat/completions`, answered from a queue of scripted
 * replies. An empty queue answers a visible default text instead of hanging the test.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted answer. */
export interface ScriptedReplySpec {
  text?: string;
  reasoning?: string;
  toolCalls?: { name: string; arguments: object | string }[];
  /** Split text, reasoning and arguments into chunks of this many characters. */
  chunkSize?: number;
  delayMsBetweenChunks?: number;
  stallBeforeFirstChunkMs?: number;
  /** Hold the stream before its first chunk until this settles (a test lets it go on). */
  holdUntil?: Promise<unknown>;
  /** Answer this HTTP status with an error body instead of a stream (e.g. 500). */
  status?: number;
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** Answer one plain JSON chat.completion instead of a stream (servers that ignore `stream: true`). */
  nonStreamed?: boolean;
  /**
   * Stream these SSE events as they are (`data: …\n\n`, comment lines, error chunks; see `sseEvent` and
   * `deltaEvent`), then `data: [DONE]` unless `omitDone`. Text, reasoning and tool calls are then ignored.
   */
  rawEvents?: string[];
  omitDone?: boolean;
  /** Called when the last event was written (a benchmark times the model's last token). */
  onEnd?: () => void;
}

/** One SSE `data:` event carrying `value` as JSON. */
export function sseEvent(value: unknown): string {
  return `data: ${JSON.stringify(value)}\n\n`;
}

/** One chat.completion.chunk event with `delta` (and a finish reason), as llama-server sends it. */
export function deltaEvent(delta: Record<string, unknown>, finishReason: string | null = null): string {
  return sseEvent({
    choices: [{ finish_reason: finishReason, index: 0, delta }],
    created: 0,
    id: 'chatcmpl-raw',
    model: 'scripted',
    object: 'chat.completion.chunk',
  });
}

/** A scripted answer, or a function of the request body that returns one. */
export type ScriptedReply = ScriptedReplySpec | ((requestBody: unknown) => ScriptedReplySpec);

/** A request the server received: the parsed JSON body, plus where it went. */
export interface ReceivedRequest {
  method: string;
  path: string;
  body: unknown;
}

export interface ScriptedModelServer {
  /** `http://127.0.0.1:PORT/v1` */
  baseURL: string;
  enqueue(reply: ScriptedReply): void;
  /** Chat-completion requests, in arrival order. */
  requests: ReceivedRequest[];
  /** Every request of any kind (`GET /v1/models`, probes of other routes…), as "METHOD path". */
  hits: string[];
  pendingReplies(): number;
  /** Drops the scripted replies not taken yet (a test sharing the server starts with an empty queue); returns how many. */
  clearQueue(): number;
  /**
   * Forgets every scripted reply not yet taken and every request seen, so that tests sharing one
   * server start as on a fresh one: a reply one test queued and never used cannot answer the next.
   */
  reset(): void;
  /** Resolves once `count` chat-completion requests have arrived. */
  waitForRequests(count: number): Promise<void>;
  /** Answer llama-server's `GET /props` with `modalities.vision` = `sees` (undefined: no /props, as before). */
  setVision(sees: boolean | undefined): void;
  close(): Promise<void>;
}

export const DEFAULT_SCRIPTED_TEXT = '(no scripted reply)';

/** Starts the server on an ephemeral port of 127.0.0.1. */
export async function startScriptedModelServer(
  options: { modelId?: string /** A fixed port (default: any free one). */; port?: number } = {},
): Promise<ScriptedModelServer> {
  const modelId = options.modelId ?? 'scripted-model-7b';
  const queue: ScriptedReply[] = [];
  const requests: ReceivedRequest[] = [];
  const hits: string[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  let vision: boolean | undefined;

  const notifyWaiters = (): void => {
    for (const waiter of [...waiters]) {
      if (requests.length >= waiter.count) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      // A test server must never take the test process down; answer 500 if still possible.
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: error instanceof Error ? error.message : String(error) } }));
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (request.url ?? '/').split('?')[0]!;
    hits.push(`${request.method ?? 'GET'} ${path}`);
    if (request.method === 'GET' && path === '/v1/models') {
      sendJson(response, 200, { object: 'list', data: [{ id: modelId, object: 'model', created: 0, owned_by: 'scripted' }] });
      return;
    }
    if (request.method === 'GET' && path === '/props' && vision !== undefined) {
      sendJson(response, 200, { model_path: `/models/${modelId}.gguf`, modalities: { vision, audio: false } });
      return;
    }
    if (request.method === 'POST' && path === '/v1/chat/completions') {
      const body = await readJson(request);
      requests.push({ method: 'POST', path, body });
      notifyWaiters();
      const next = queue.shift() ?? { text: DEFAULT_SCRIPTED_TEXT };
      const reply = typeof next === 'function' ? next(body) : next;
      await streamReply(response, reply, modelId);
      return;
    }
    sendJson(response, 404, { error: { message: `No route for ${request.method} ${path}` } });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    enqueue: (reply) => void queue.push(reply),
    requests,
    hits,
    pendingReplies: () => queue.length,
    clearQueue: () => queue.splice(0).length,
    reset() {
      queue.length = 0;
      requests.length = 0;
      hits.length = 0;
      waiters.length = 0;
      vision = undefined;
    },
    setVision(sees) {
      vision = sees;
    },
    waitForRequests(count) {
      if (requests.length >= count) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
    /** Idempotent: a test may take the server away early (a model server going down). */
    close: () =>
      new Promise((resolve, reject) => {
        if (!server.listening) return resolve();
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    return { unparsed: text, error: error instanceof Error ? error.message : String(error) };
  }
}

function sendJson(response: ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(value));
}

/** Streams one reply as SSE; stops quietly when the client goes away. */
async function streamReply(response: ServerResponse, reply: ScriptedReplySpec, modelId: string): Promise<void> {
  if (reply.status !== undefined && reply.status >= 400) {
    sendJson(response, reply.status, { error: { message: `scripted failure ${reply.status}`, type: 'server_error' } });
    return;
  }
  if (reply.nonStreamed) {
    const message = { role: 'assistant', content: reply.text ?? '' };
    sendJson(response, 200, {
      id: `chatcmpl-scripted-${Date.now()}`,
      object: 'chat.completion',
      created: 0,
      model: modelId,
      choices: [{ index: 0, message, finish_reason: 'stop' }],
      usage: { prompt_tokens: 100, completion_tokens: 0, total_tokens: 100 },
    });
    return;
  }
  let gone = false;
  response.on('close', () => {
    gone = !response.writableFinished;
  });
  // A write racing the client's disconnect errors here; the client going away is expected, not a failure.
  response.on('error', () => {
    gone = true;
  });
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  response.flushHeaders();
  if (reply.rawEvents) {
    for (const [index, event] of reply.rawEvents.entries()) {
      if (gone || response.destroyed) return;
      if (index > 0 && reply.delayMsBetweenChunks) await pause(reply.delayMsBetweenChunks);
      response.write(event);
    }
    if (!gone && !response.destroyed) response.end(reply.omitDone ? '' : 'data: [DONE]\n\n');
    return;
  }

  const id = `chatcmpl-scripted-${Date.now()}`;
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null): string =>
    JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model: modelId, choices: [{ index: 0, delta, finish_reason: finishReason }] });
  const events: string[] = [chunk({ role: 'assistant', content: '' })];
  for (const piece of split(reply.reasoning ?? '', reply.chunkSize)) events.push(chunk({ reasoning_content: piece }));
  for (const piece of split(reply.text ?? '', reply.chunkSize)) events.push(chunk({ content: piece }));
  (reply.toolCalls ?? []).forEach((call, index) => {
    const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
    events.push(chunk({ tool_calls: [{ index, id: `call_${index}`, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (const piece of split(args, reply.chunkSize)) events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  events.push(chunk({}, reply.toolCalls && reply.toolCalls.length > 0 ? 'tool_calls' : 'stop'));
  const usage = reply.usage ?? { prompt_tokens: 100, completion_tokens: Math.ceil(((reply.text ?? '').length + (reply.reasoning ?? '').length) / 4) };
  events.push(
    JSON.stringify({
      id,
      object: 'chat.completion.chunk',
      created: 0,
      model: modelId,
      choices: [],
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    }),
  );

  if (reply.stallBeforeFirstChunkMs) await pause(reply.stallBeforeFirstChunkMs);
  if (reply.holdUntil) await reply.holdUntil.catch(() => undefined);
  for (const [index, event] of events.entries()) {
    if (gone || response.destroyed) return;
    if (index > 0 && reply.delayMsBetweenChunks) await pause(reply.delayMsBetweenChunks);
    response.write(`data: ${event}\n\n`);
  }
  if (gone || response.destroyed) return;
  reply.onEnd?.();
  response.end('data: [DONE]\n\n');
}

function split(text: string, size: number | undefined): string[] {
  if (text === '') return [];
  if (!size || size <= 0) return [text];
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size) pieces.push(text.slice(start, start + size));
  return pieces;
}

/** Scripted pacing of the stream (what the reply asks for), not a test waiting on time. */
function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
