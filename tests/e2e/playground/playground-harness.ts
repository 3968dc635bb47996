/**
 * Starts the whole bot (`startApp`) with no platform configured — so the playground — and the
 * scripted model server, on 127.0.0.1 with a fresh data directory. Drives it as the page does:
 * JSON posts, and a server-sent event stream mirrored into memory (waitFor re-checks on every event).
 */
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { testAppConfig } from '../../support/test-app-config.js';
import { startApp, type RunningApp } from '../../../src/app/start-app.js';
import type { PlaygroundChange, PlaygroundEphemeral, PlaygroundFile, PlaygroundMessage, PlaygroundSnapshot } from '../../../src/adapters/playground/state.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../../support/scripted-model-server.js';
import { createInputLimiter } from '../../../src/adapters/playground/rate-limits.js';

export interface PlaygroundHarness {
  app: RunningApp;
  model: ScriptedModelServer;
  baseUrl: string;
  port: number;
  /** This start's access key, read from the start link in the output (as a person would). */
  key: string;
  /** The link `tsuka start` printed: the page with the key in its fragment. */
  pageUrl: string;
  /** A GET of the API with the key. */
  get(path: string): Promise<Response>;
  workspace: string;
  logs: string[];
  /** Each model state the event stream announced, in order. */
  modelStates: { ok: boolean; message: string }[];
  /** Every message as the event stream last showed it. */
  messages: Map<string, PlaygroundMessage>;
  /** Every text each message had, in order (the first post, then each edit). */
  history: Map<string, string[]>;
  /** Ephemerals and files the stream announced: all of them, or only `channel`'s once `freshChannel` was called. */
  readonly ephemerals: PlaygroundEphemeral[];
  readonly files: PlaygroundFile[];
  /** The channel `say` writes in: `general`, or the one `freshChannel` made. */
  readonly channel: string;
  /**
   * Gives the next test a start of its own on this running app: a new channel (now `channel`), the
   * model's queue and records emptied, and what earlier tests left in the workspace removed.
   */
  freshChannel(): Promise<string>;
  /** Messages in the thread under root `root` (root excluded), oldest first. */
  thread(root: string): PlaygroundMessage[];
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }>;
  /** A raw request with any Host header (fetch does not let a test forge one); with the access key unless `withKey` is false. */
  raw(options: {
    method: string;
    path: string;
    host: string;
    headers?: Record<string, string>;
    body?: string;
    withKey?: boolean;
  }): Promise<{ status: number; headers: Record<string, unknown>; text: string }>;
  /** A top-level message; resolves with the id of the message (its thread's root). */
  say(text: string, thread?: string): Promise<string>;
  waitFor(predicate: () => boolean, timeoutMs?: number): Promise<void>;
  /** The data folder (pass it as `home` to start again on the same state). */
  home: string;
  /** Stops everything; `keepHome` leaves the data folder for a restart. */
  stop(options?: { keepHome?: boolean }): Promise<void>;
}

export interface PlaygroundHarnessOptions {
  environment?: Record<string, string>;
  /** false: no model URL at all (discovery of local servers). */
  withModel?: boolean;
  /** A model URL other than the harness's scripted server. */
  modelBaseURL?: string;
  /** A package root with other data files (e.g. a providers.json pointing at test servers). */
  rootDirectory?: string;
  modelProbeIntervalMs?: number;
  /** A data folder to start on again (a restart); default a fresh one. */
  home?: string;
}

export async function startPlaygroundHarness(options: PlaygroundHarnessOptions = {}): Promise<PlaygroundHarness> {
  const home = options.home ?? (await mkdtemp(path.join(os.tmpdir(), 'tsuka-playground-')));
  const model = await startScriptedModelServer({ modelId: 'qwen2.5-coder:7b' });
  const workspace = path.join(home, 'workspace');
  const logs: string[] = [];
  const config = testAppConfig(home, options.withModel === false ? '' : (options.modelBaseURL ?? model.baseURL), options.environment, options.rootDirectory);
  const waiters = new Set<() => void>();
  const log = (text: string) => {
    logs.push(text);
    for (const check of [...waiters]) check();
  };
  let limiter = createInputLimiter();
  const app = await startApp({
    config,
    io: { stdout: log, stderr: log, environment: {}, workingDirectory: home },
    playgroundLimiter: { tryTake: () => limiter.tryTake() },
    modelProbeIntervalMs: options.modelProbeIntervalMs,
  });
  const port = app.http.port;
  const baseUrl = `http://127.0.0.1:${port}`;
  const pageUrl = /(http:\/\/127\.0\.0\.1:\d+\/#k=[\w-]+)/.exec(logs.join(''))?.[1];
  if (!pageUrl) throw new Error(`the start printed no playground link with its key:\n${logs.join('')}`);
  const key = pageUrl.slice(pageUrl.indexOf('#k=') + 3);
  const keyHeader = { 'x-tsuka-key': key };

  const messages = new Map<string, PlaygroundMessage>();
  const history = new Map<string, string[]>();
  const ephemerals: PlaygroundEphemeral[] = [];
  const files: PlaygroundFile[] = [];
  let channel = 'general';
  let scoped = false;
  let channelCount = 0;
  await mkdir(workspace, { recursive: true });
  // What the start itself put in the workspace stays; whatever a test adds goes at the next fresh channel.
  const startEntries = new Set(await readdir(workspace));
  const modelStates: { ok: boolean; message: string }[] = [];
  const apply = (change: PlaygroundChange | { kind: 'snapshot'; snapshot: PlaygroundSnapshot }) => {
    if (change.kind === 'snapshot') for (const message of change.snapshot.messages) apply({ kind: 'message', message });
    else if (change.kind === 'message') {
      messages.set(change.message.id, change.message);
      history.set(change.message.id, [...(history.get(change.message.id) ?? []), change.message.text]);
    } else if (change.kind === 'ephemeral') ephemerals.push(change.ephemeral);
    else if (change.kind === 'file') files.push(change.file);
    else if (change.kind === 'model') modelStates.push(change.model);
    for (const check of [...waiters]) check();
  };

  const streamAbort = new AbortController();
  const stream = await fetch(`${baseUrl}/events`, { signal: streamAbort.signal, headers: keyHeader });
  if (!stream.ok || !stream.body) throw new Error(`GET /events answered ${stream.status}`);
  const snapshotSeen = new Promise<void>((resolve) => {
    void (async () => {
      const decoder = new TextDecoder();
      let buffer = '';
      try {
        for await (const chunk of stream.body as unknown as AsyncIterable<Uint8Array>) {
          buffer += decoder.decode(chunk, { stream: true });
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const type = /^event: (.+)$/m.exec(block)?.[1];
            const data = /^data: (.+)$/m.exec(block)?.[1];
            if (!type || !data) continue;
            if (type === 'snapshot') {
              apply({ kind: 'snapshot', snapshot: JSON.parse(data) as PlaygroundSnapshot });
              resolve();
            } else apply(JSON.parse(data) as PlaygroundChange);
          }
        }
      } catch (error) {
        if (!streamAbort.signal.aborted) logs.push(`event stream failed: ${String(error)}`);
      }
    })();
  });
  await snapshotSeen;

  const harness: PlaygroundHarness = {
    app,
    model,
    modelStates,
    baseUrl,
    port,
    key,
    pageUrl,
    get: (pathname) => fetch(`${baseUrl}${pathname}`, { headers: keyHeader }),
    workspace,
    logs,
    messages,
    history,
    get ephemerals() {
      return scoped ? ephemerals.filter((ephemeral) => ephemeral.channel === channel) : ephemerals;
    },
    get files() {
      return scoped ? files.filter((file) => file.channel === channel) : files;
    },
    get channel() {
      return channel;
    },
    async freshChannel() {
      model.reset();
      const left = (await readdir(workspace)).filter((entry) => !startEntries.has(entry));
      await Promise.all(left.map((entry) => rm(path.join(workspace, entry), { recursive: true, force: true })));
      // The product's limit (20 inputs a second) in a window of this test's own, as on a fresh app:
      // the channel is made in one that earlier tests did not use, the test starts in another.
      limiter = createInputLimiter();
      const made = await harness.post('/api/channels', { name: `test-${++channelCount}` });
      if (made.status !== 200) throw new Error(`POST /api/channels answered ${made.status}: ${JSON.stringify(made.body)}`);
      channel = (made.body.channel as { id: string }).id;
      limiter = createInputLimiter();
      scoped = true;
      return channel;
    },
    thread: (root) => [...messages.values()].filter((message) => message.thread === root).sort((a, b) => a.createdAt - b.createdAt),
    async post(pathname, body, headers = {}) {
      const response = await fetch(`${baseUrl}${pathname}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...keyHeader, ...headers },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    },
    raw: ({ method, path: pathname, host, headers = {}, body, withKey = true }) =>
      new Promise((resolve, reject) => {
        const request = httpRequest(
          { host: '127.0.0.1', port, method, path: pathname, headers: { host, ...(withKey ? keyHeader : {}), ...headers } },
          (response) => {
            let text = '';
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => (text += chunk));
            response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text }));
          },
        );
        request.on('error', reject);
        request.end(body);
      }),
    async say(text, thread) {
      const answer = await harness.post('/api/messages', { channel, text, ...(thread ? { thread } : {}) });
      if (answer.status !== 202) throw new Error(`POST /api/messages answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      return String(answer.body.thread);
    },
    waitFor(predicate, timeoutMs = 8000) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!predicate()) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `waitFor timed out; messages:\n${[...messages.values()].map((m) => `${m.id} [${m.thread ?? '-'}] ${m.author.name}: ${m.text.slice(0, 120)}`).join('\n')}\nephemerals: ${ephemerals.map((e) => e.text.slice(0, 120)).join(' | ')}`,
            ),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    home,
    async stop(stopOptions = {}) {
      streamAbort.abort();
      await app.stop();
      await model.close();
      // A write the stopped app had begun (an inbox file, a session save) may land while the folder goes: retried.
      if (!stopOptions.keepHome) await rm(home, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    },
  };
  return harness;
}

/**
 * One app for the tests of the calling `describe` (started before them, stopped after), each test
 * on a fresh channel (`freshChannel`). A configuration of its own is a `describe` of its own.
 */
export function sharedPlaygroundHarness(options?: PlaygroundHarnessOptions): () => PlaygroundHarness {
  let harness: PlaygroundHarness | undefined;
  beforeAll(async () => {
    harness = await startPlaygroundHarness(options);
  });
  afterAll(async () => {
    await harness?.stop();
  });
  beforeEach(async () => {
    await harness!.freshChannel();
  });
  return () => {
    if (!harness) throw new Error('the shared playground harness did not start (see beforeAll)');
    return harness;
  };
}
