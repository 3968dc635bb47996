/**
 * A PDF's text (issue 23), read by pdf.js (the `unpdf` package's build of it) in a worker thread:
 * the bot's own event loop never parses a PDF (pdf.js's in-process "fake worker" holds the loop for
 * the whole document), a document that takes too long is stopped by ending its thread, and the
 * thread's heap is capped. At most {@link PDF_MAX_PAGES} pages and {@link PDF_MAX_TEXT_CHARS}
 * characters are read. The library is resolved here but loaded in the worker only, and only when a
 * PDF arrives: starting the bot loads none of it.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { TsukaError } from '../core/errors.js';
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

/** The text of the PDF in `bytes` (left untouched: the worker gets a copy). */
export async function extractPdfText(bytes: Uint8Array, options: PdfTextOptions = {}): Promise<PdfText> {
  const modulePath = pdfLibrary();
  options.signal?.throwIfAborted();
  const copy = bytes.slice();
  const worker = new Worker(PDF_WORKER_SOURCE, {
    eval: true,
    workerData: { bytes: copy, modulePath, maxPages: options.maxPages ?? PDF_MAX_PAGES, maxChars: options.maxChars ?? PDF_MAX_TEXT_CHARS },
    transferList: [copy.buffer],
    resourceLimits: { maxOldGenerationSizeMb: PDF_WORKER_HEAP_MB, maxYoungGenerationSizeMb: 32 },
    // Whatever pdf.js prints stays out of the bot's own output (its JSON log lines).
    stdout: true,
    stderr: true,
  });
  worker.stdout.resume();
  worker.stderr.resume();
  const timeoutMs = options.timeoutMs ?? PDF_TIMEOUT_MS;
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    const answer = await new Promise<WorkerAnswer>((resolve, reject) => {
      timer = setTimeout(() => reject(new PdfTextError('timeout', `reading its text took longer than ${seconds(timeoutMs)}`)), timeoutMs);
      onAbort = () => reject(options.signal?.reason ?? new Error('aborted'));
      options.signal?.addEventListener('abort', onAbort, { once: true });
      worker.once('message', (message: WorkerAnswer) => resolve(message));
      worker.once('error', (error: Error & { code?: string }) =>
        reject(
          error.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new PdfTextError('memory', `reading its text needed more than ${PDF_WORKER_HEAP_MB} MB`, { cause: error })
            : new PdfTextError('failed', error.message, { cause: error }),
        ),
      );
      worker.once('exit', (code) => reject(new PdfTextError('failed', `the PDF reader stopped (exit code ${code})`)));
    });
    if (!answer.ok) throw failureOf(answer);
    return {
      text: answer.text ?? '',
      pages: answer.pages ?? 0,
      totalPages: answer.totalPages ?? 0,
      truncated: answer.truncated ?? false,
      empty: (answer.chars ?? 0) === 0,
    };
  } finally {
    clearTimeout(timer);
    if (onAbort) options.signal?.removeEventListener('abort', onAbort);
    // Ended in every case: after its answer, at a timeout, or when the turn is stopped.
    await worker.terminate();
  }
}

function failureOf(answer: WorkerAnswer): PdfTextError {
  const detail = answer.message ?? 'unknown error';
  if (answer.name === 'PasswordException') return new PdfTextError('encrypted', 'it is password-protected (encrypted)');
  if (answer.name === 'InvalidPDFException' || answer.name === 'FormatError')
    return new PdfTextError('invalid', `it is not a readable PDF (${detail.replace(/\.$/, '')})`);
  return new PdfTextError('failed', detail);
}

const seconds = (ms: number) => (ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`);
