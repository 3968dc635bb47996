/**
 * One JSON request of a server probe. Never throws: a probe reports what failed and goes on, so
 * `tsuka doctor` can say exactly which step broke.
 */

/** The outcome of one probe request. */
export type ProbeResponse = { ok: true; value: unknown } | { ok: false; reachable: boolean; status?: number; message: string; cause?: unknown };

export interface ProbeRequestOptions {
  fetch: typeof fetch;
  signal: AbortSignal;
  /** How long the whole probe may take, for the message when it runs out. */
  timeoutMs: number;
  apiKey?: string;
  body?: unknown;
}

/** GETs (or POSTs `body` to) `url` and parses the JSON answer. */
export async function probeRequest(url: string, options: ProbeRequestOptions): Promise<ProbeResponse> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await options.fetch(url, {
      method: options.body === undefined ? 'GET' : 'POST',
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
    });
  } catch (error) {
    const message = options.signal.aborted ? `no answer within ${formatSeconds(options.timeoutMs)}` : `not reachable (${describeNetworkError(error)})`;
    return { ok: false, reachable: false, message, cause: error };
  }
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    const message = options.signal.aborted ? `no complete answer within ${formatSeconds(options.timeoutMs)}` : 'the answer broke off';
    return { ok: false, reachable: true, status: response.status, message, cause: error };
  }
  if (!response.ok) {
    const message = response.status === 401 || response.status === 403 ? `refused the API key (${response.status})` : `answered ${response.status}`;
    return { ok: false, reachable: true, status: response.status, message };
  }
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, reachable: true, status: response.status, message: 'answered something that is not JSON', cause: error };
  }
}

function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

/** `fetch failed` says nothing; the cause (`connect ECONNREFUSED 127.0.0.1:11434`) does. */
function describeNetworkError(error: unknown): string {
  let deepest = error instanceof Error ? error.message : String(error);
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 5; depth += 1) {
    if (current.message) deepest = current.message;
    current = current.cause;
  }
  return deepest;
}
