/**
 * The OpenAI client only reads an error body's `error` field; vLLM and some proxies answer
 * `{"object":"error","message":…}` instead, which the client would report as "(no body)". This fetch
 * wrapper nests such bodies under `error` so the server's words reach the error message (and the
 * rejected-parameter check).
 */

type Fetch = typeof fetch;

/** Wraps `fetch` so that JSON error bodies without an `error` field are nested under one. */
export function withReadableErrors(baseFetch: Fetch): Fetch {
  return async (input, init) => {
    const response = await baseFetch(input, init);
    if (response.ok || response.status < 400) return response;
    const text = await response.text();
    let body = text;
    const parsed = parseObject(text);
    if (parsed && !('error' in parsed)) body = JSON.stringify({ error: parsed });
    const headers = new Headers(response.headers);
    // The body was already decoded and may have changed length.
    headers.delete('content-length');
    headers.delete('content-encoding');
    return new Response(body, { status: response.status, statusText: response.statusText, headers });
  };
}

function parseObject(text: string): Record<string, unknown> | undefined {
  if (!text.trimStart().startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch (error) {
    // Not JSON after all: the client reports the raw text, which is what we want.
    void error;
    return undefined;
  }
}
