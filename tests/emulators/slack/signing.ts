/**
 * HTTP-mode delivery: Slack signs each request with the app's signing secret,
 * `v0=HMAC_SHA256(secret, "v0:" + timestamp + ":" + raw body)`
 * (https://docs.slack.dev/authentication/verifying-requests-from-slack).
 */
import { createHmac } from 'node:crypto';

/** The two headers Slack adds to every request it sends to an app. */
export interface SlackSignatureHeaders {
  'x-slack-signature': string;
  'x-slack-request-timestamp': string;
}

/** Signs `body` exactly as Slack does. */
export function signSlackRequest(secret: string, body: string, timestampSeconds: number): SlackSignatureHeaders {
  const timestamp = String(Math.floor(timestampSeconds));
  const digest = createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex');
  return { 'x-slack-signature': `v0=${digest}`, 'x-slack-request-timestamp': timestamp };
}

/** Options of the signed posts: a chosen timestamp (old or future ones test rejection) and retry headers. */
export interface SignedPostOptions {
  /** Seconds since the epoch; defaults to now. */
  timestamp?: number;
  /** Sent as `X-Slack-Retry-Num`, as Slack does when it re-delivers an event. */
  retryNum?: number;
  /** Sent as `X-Slack-Retry-Reason` (e.g. `http_timeout`). */
  retryReason?: string;
  /** Sign with this secret instead (a wrong one tests rejection) while posting the same body. */
  signWith?: string;
}

/** What the bot answered. */
export interface SignedPostResult {
  status: number;
  body: string;
  headers: Headers;
}

async function postSigned(url: string, body: string, contentType: string, secret: string, options: SignedPostOptions): Promise<SignedPostResult> {
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  const headers: Record<string, string> = {
    'content-type': contentType,
    ...signSlackRequest(options.signWith ?? secret, body, timestamp),
  };
  if (options.retryNum !== undefined) headers['x-slack-retry-num'] = String(options.retryNum);
  if (options.retryReason !== undefined) headers['x-slack-retry-reason'] = options.retryReason;
  const response = await fetch(url, { method: 'POST', headers, body });
  return { status: response.status, body: await response.text(), headers: response.headers };
}

/** Posts an Events API body (e.g. an `event_callback` from payloads.ts) as JSON, signed. */
export function postSignedEvent(url: string, payload: unknown, secret: string, options: SignedPostOptions = {}): Promise<SignedPostResult> {
  return postSigned(url, JSON.stringify(payload), 'application/json', secret, options);
}

/**
 * Posts form fields, signed: slash commands arrive this way, and interactions as a single
 * `payload` field holding the JSON payload.
 */
export function postSignedForm(url: string, fields: Record<string, string>, secret: string, options: SignedPostOptions = {}): Promise<SignedPostResult> {
  return postSigned(url, new URLSearchParams(fields).toString(), 'application/x-www-form-urlencoded', secret, options);
}
