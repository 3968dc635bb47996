import { describe, expect, it } from 'vitest';
import { ChatDeliveryError, DELIVERY_RETRY_BUDGET_MS, retryWithinBudget } from '../../../src/commands/reply/delivery-retry.js';
import { classifySlackError } from '../../../src/adapters/slack/rate-limits.js';
import { classifyDiscordError } from '../../../src/adapters/discord/surface.js';

/** A clock that only moves when the retry loop sleeps. */
function fakeTime() {
  let now = 0;
  const waits: number[] = [];
  return { now: () => now, sleep: async (ms: number) => void (waits.push(ms), (now += ms)), waits };
}

const http500 = Object.assign(new Error('An HTTP protocol error occurred: statusCode = 500'), { code: 'slack_webapi_http_error', statusCode: 500 });
const rateLimited = Object.assign(new Error('A rate-limit has been reached'), { code: 'slack_webapi_rate_limited_error', retryAfter: 1 });

describe('retryWithinBudget', () => {
  it('waits out 5xx with doubling backoff and returns the answer once the platform is back', async () => {
    const time = fakeTime();
    let calls = 0;
    const result = await retryWithinBudget(async () => (++calls <= 4 ? Promise.reject(http500) : 'ok'), {
      platform: 'slack',
      method: 'chat.update',
      classify: classifySlackError,
      ...time,
    });
    expect(result).toBe('ok');
    expect(time.waits).toEqual([500, 1000, 2000, 4000]);
  });

  it('honours Retry-After on 429', async () => {
    const time = fakeTime();
    let calls = 0;
    await retryWithinBudget(async () => (++calls <= 8 ? Promise.reject(rateLimited) : 'ok'), {
      platform: 'slack',
      method: 'chat.postMessage',
      classify: classifySlackError,
      ...time,
    });
    expect(time.waits).toEqual(Array(8).fill(1000));
  });

  it('gives up after the 60 s budget with an error that says what failed, keeping the cause', async () => {
    const time = fakeTime();
    const failure = await retryWithinBudget(() => Promise.reject(http500), {
      platform: 'slack',
      method: 'chat.update',
      classify: classifySlackError,
      ...time,
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ChatDeliveryError);
    expect((failure as ChatDeliveryError).message).toMatch(/^Slack kept failing \(HTTP 500 on chat\.update\) for \d+ s/);
    expect((failure as ChatDeliveryError).cause).toBe(http500);
    expect(time.now()).toBeLessThanOrEqual(DELIVERY_RETRY_BUDGET_MS);
    expect(time.now()).toBeGreaterThan(DELIVERY_RETRY_BUDGET_MS - 8_000);
  });

  it('rethrows at once what is not worth another try', async () => {
    const time = fakeTime();
    const refused = Object.assign(new Error('An API error occurred: msg_too_long'), { code: 'slack_webapi_platform_error' });
    await expect(
      retryWithinBudget(() => Promise.reject(refused), { platform: 'slack', method: 'chat.update', classify: classifySlackError, ...time }),
    ).rejects.toBe(refused);
    expect(time.waits).toEqual([]);
  });
});

describe('which platform errors are retried', () => {
  it('Slack: 429, 5xx and network errors; not its {ok:false} answers nor 4xx', () => {
    expect(classifySlackError(rateLimited)).toEqual({ reason: 'rate limited (429)', retryAfterMs: 1000 });
    expect(classifySlackError(http500)).toEqual({ reason: 'HTTP 500' });
    expect(classifySlackError({ code: 'slack_webapi_request_error' })).toEqual({ reason: 'network error' });
    expect(classifySlackError({ code: 'slack_webapi_http_error', statusCode: 404 })).toBeUndefined();
    expect(classifySlackError({ code: 'slack_webapi_platform_error' })).toBeUndefined();
  });

  it('Discord: 5xx (after the REST client’s own retries) and network errors; not API errors', () => {
    expect(classifyDiscordError({ name: 'HTTPError', status: 502 })).toEqual({ reason: 'HTTP 502' });
    expect(classifyDiscordError({ code: 'ECONNRESET' })).toEqual({ reason: 'network error' });
    expect(classifyDiscordError({ name: 'DiscordAPIError', status: 403, code: 50013 })).toBeUndefined();
  });
});
