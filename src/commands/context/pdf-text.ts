/**
 * A PDF's text (issue 23), read by pdf.js (the `unpdf` package's build of it) in a worker thread:
 * the bot's own event loop never parses a PDF (pdf.js's in-process "fake worker" holds the loop for
 * the whole document), a document that takes too long is stopped by ending its thread, and the
 * thread's heap is capped. The thread is started by the first PDF and ended after a minute idle. At most {@link PDF_MAX_PAGES} pages and {@link PDF_MAX_TEXT_CHARS}
 * characters are read. The library is resolved here but loaded in the worker only, and only when a
 * PDF arrives: starting the bot loads none of it.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { TsukaError } from '../../core/errors.js';
import { PDF_WORKER_SOURCE } from './pdf-worker-source.js';

/** Pages read at most; the rest of a longer document is left (and said). */
export const PDF_MAX_PAGES = 50;
/** Characters of text kept at most. */
export const PDF_MAX_TEXT_CHARS = 200_000;
/** A PDF whose text is not read within this time is given up. */
export const PDF_TIMEOUT_MS = 30_000;
/** Heap of the reading thread (a hostile PDF cannot grow the bot's memory past it). */
export const PDF_WORKER_HEAP_MB = 256;

export type PdfFailure = 'encrypted' | 'invalid' | 'timeout' | 'memory' | 'unavailable' | 'failed';

/** Why a PDF's text could not be read; `message` is said in the thread after "couldn't read <name>: ". */
export class PdfTextError extends TsukaError {
  readonly reason: PdfFailure;
  constructor(reason: PdfFailure, message: string, options?: { cause?: unknown }) {
    super(`pdf_${reason}`, message, options);
    this.reason = reason;
  }
}

export interface PdfText {
  /** The pages' text, each after a `[page N]` line. */
  text: string;
  /** Pages read. */
  pages: number;
  totalPages: number;
  /** Pages or characters were left out. */
  truncated: boolean;
  /** No page had any text (a scan, or pictures only). */
  empty: boolean;
}

export interface PdfTextOptions {
  maxPages?: number;
  maxChars?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
}

interface WorkerAnswer {
  id: number;
  ok: boolean;
  text?: string;
  chars?: number;
  pages?: number;
  totalPages?: number;
  truncated?: boolean;
  name?: string;
  message?: string;
}

let libraryPath: string | undefined;
function pdfLibrary(): string {
  try {
    libraryPath ??= createRequire(import.meta.url).resolve('unpdf');
    return libraryPath;
  } catch (error) {
    throw new PdfTextError('unavailable', 'the PDF reader (npm package unpdf) is not installed', { cause: error });
  }
}

/** A worker left without a PDF this long is ended (the next PDF starts another). */
const IDLE_MS = 60_000;

let reader: Worker | undefined;
let idleTimer: NodeJS.Timeout | undefined;
let queue: Promise<unknown> = Promise.resolve();
let nextJob = 0;
const lastErrors = new WeakMap<Worker, Error & { code?: string }>();

/**
 * The text of the PDF in `bytes` (left untouched: the worker gets a copy). PDFs are read one at a
 * time by one worker thread, kept up between them; the timeout counts from the PDF's own start.
 */
export function extractPdfText(bytes: Uint8Array, options: PdfTextOptions = {}): Promise<PdfText> {
  let modulePath: string;
  try {
    modulePath = pdfLibrary();
  } catch (error) {
    return Promise.reject(error);
  }
  const job = queue.then(() => readOne(modulePath, bytes, options));
  queue = job.catch(() => undefined);
  return job;
}

/** Ends the reading thread now (it never keeps the process alive; this is for tidy shutdowns and tests). */
export async function stopPdfReader(): Promise<void> {
  clearTimeout(idleTimer);
  if (reader) await stopWorker(reader);
}

function startWorker(modulePath: string): Worker {
  const worker = new Worker(PDF_WORKER_SOURCE, {
    eval: true,
    workerData: { modulePath },
    resourceLimits: { maxOldGenerationSizeMb: PDF_WORKER_HEAP_MB, maxYoungGenerationSizeMb: 32 },
    // Whatever pdf.js prints stays out of the bot's own output (its JSON log lines).
    stdout: true,
    stderr: true,
  });
  worker.stdout.resume();
  worker.stderr.resume();
  worker.unref();
  // Kept for the job that sees the thread exit (a heap over its cap ends the thread with this error).
  worker.on('error', (error: Error & { code?: string }) => lastErrors.set(worker, error));
  worker.once('exit', () => {
    if (reader === worker) reader = undefined;
  });
  return worker;
}

async function stopWorker(worker: Worker): Promise<void> {
  if (reader === worker) reader = undefined;
  await worker.terminate();
}

async function readOne(modulePath: string, bytes: Uint8Array, options: PdfTextOptions): Promise<PdfText> {
  options.signal?.throwIfAborted();
  clearTimeout(idleTimer);
  const worker = (reader ??= startWorker(modulePath));
  const id = ++nextJob;
  const copy = bytes.slice();
  const timeoutMs = options.timeoutMs ?? PDF_TIMEOUT_MS;
  const cleanup: (() => void)[] = [];
  let answer: WorkerAnswer;
  try {
    answer = await new Promise<WorkerAnswer>((resolve, reject) => {
      const onMessage = (message: WorkerAnswer) => message.id === id && resolve(message);
      const onExit = (code: number) => reject(exitError(lastErrors.get(worker), code));
      const onAbort = () => reject(options.signal?.reason ?? new Error('aborted'));
      const timer = setTimeout(() => reject(new PdfTextError('timeout', `reading its text took longer than ${seconds(timeoutMs)}`)), timeoutMs);
      worker.on('message', onMessage);
      worker.once('exit', onExit);
      options.signal?.addEventListener('abort', onAbort, { once: true });
      cleanup.push(() => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('exit', onExit);
        options.signal?.removeEventListener('abort', onAbort);
      });
      worker.postMessage({ id, bytes: copy, maxPages: options.maxPages ?? PDF_MAX_PAGES, maxChars: options.maxChars ?? PDF_MAX_TEXT_CHARS }, [copy.buffer]);
    });
  } catch (error) {
    // A PDF given up (too slow, the turn stopped) leaves the thread busy with it: the thread is ended.
    await stopWorker(worker);
    throw error;
  } finally {
    for (const step of cleanup) step();
  }
  idleTimer = setTimeout(() => void stopWorker(worker), IDLE_MS).unref();
  if (!answer.ok) throw failureOf(answer);
  return {
    text: answer.text ?? '',
    pages: answer.pages ?? 0,
    totalPages: answer.totalPages ?? 0,
    truncated: answer.truncated ?? false,
    empty: (answer.chars ?? 0) === 0,
  };
}

function exitError(error: (Error & { code?: string }) | undefined, code: number): PdfTextError {
  if (error?.code === 'ERR_WORKER_OUT_OF_MEMORY')
    return new PdfTextError('memory', `reading its text needed more than ${PDF_WORKER_HEAP_MB} MB`, { cause: error });
  return new PdfTextError('failed', error ? error.message : `the PDF reader stopped (exit code ${code})`, error ? { cause: error } : undefined);
}

function failureOf(answer: WorkerAnswer): PdfTextError {
  const detail = answer.message ?? 'unknown error';
  if (answer.name === 'PasswordException') return new PdfTextError('encrypted', 'it is password-protected (encrypted)');
  if (answer.name === 'InvalidPDFException' || answer.name === 'FormatError')
    return new PdfTextError('invalid', `it is not a readable PDF (${detail.replace(/\.$/, '')})`);
  return new PdfTextError('failed', detail);
}

const seconds = (ms: number) => (ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`);
