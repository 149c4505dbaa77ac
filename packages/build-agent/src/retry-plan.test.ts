import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { describe, expect, it } from 'vitest';
import { type RetryOptions, retryAfterMs, retryPlan } from './retry-plan.ts';

const o: RetryOptions = { retries: 3, minTimeoutMs: 100, maxTimeoutMs: 1000, maxRetryAfterMs: 5000 };
const NOW = Date.parse('2026-03-15T10:00:00Z');
const http = (status: number, headers: Record<string, string> = {}) => APIError.generate(status, { error: { message: 'x' } }, undefined, new Headers(headers));

describe('retryPlan', () => {
  const table: Array<[string, unknown, number, ReturnType<typeof retryPlan>]> = [
    ['429 without Retry-After: backoff', http(429), 0, { retry: true, delayMs: 100, why: 'HTTP 429' }],
    ['429 with Retry-After seconds', http(429, { 'retry-after': '2' }), 0, { retry: true, delayMs: 2000, why: 'HTTP 429 (Retry-After 2000 ms)' }],
    [
      'Retry-After shorter than the backoff: the backoff',
      http(429, { 'retry-after-ms': '10' }),
      2,
      { retry: true, delayMs: 400, why: 'HTTP 429 (Retry-After 10 ms)' },
    ],
    [
      'Retry-After as an HTTP date',
      http(503, { 'retry-after': 'Sun, 15 Mar 2026 10:00:03 GMT' }),
      0,
      { retry: true, delayMs: 3000, why: 'HTTP 503 (Retry-After 3000 ms)' },
    ],
    [
      'Retry-After over the limit: give up',
      http(429, { 'retry-after': '3600' }),
      0,
      { retry: false, why: 'HTTP 429: the server asks to wait 3600 s, over the 5 s bvl waits' },
    ],
    ['500', http(500), 1, { retry: true, delayMs: 200, why: 'HTTP 500' }],
    ['backoff is capped', http(502), 3, { retry: false, why: 'gave up after 4 attempts' }],
    ['408', http(408), 0, { retry: true, delayMs: 100, why: 'HTTP 408' }],
    ['timeout', new APIConnectionTimeoutError(), 0, { retry: true, delayMs: 100, why: 'the request timed out' }],
    ['connection refused', new APIConnectionError({ message: 'ECONNREFUSED' }), 2, { retry: true, delayMs: 400, why: 'the connection failed' }],
    ['400 is not transient', http(400), 0, { retry: false, why: 'not a transient failure' }],
    ['401', http(401), 0, { retry: false, why: 'not a transient failure' }],
    ['abort', new APIUserAbortError(), 0, { retry: false, why: 'aborted' }],
    ['a bug', new TypeError('x is undefined'), 0, { retry: false, why: 'not a transient failure' }],
  ];
  it.each(table)('%s', (_name, error, consumed, plan) => {
    expect(retryPlan(error, consumed, o, NOW)).toEqual(plan);
  });

  it('reads Retry-After forms; garbage is no Retry-After', () => {
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '250' }), NOW)).toBe(250);
    expect(retryAfterMs(new Headers({ 'retry-after': '1.5' }), NOW)).toBe(1500);
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }), NOW)).toBeUndefined();
    expect(retryAfterMs(new Headers({ 'retry-after': 'Sun, 15 Mar 2026 09:00:00 GMT' }), NOW)).toBe(0);
    expect(retryAfterMs(undefined, NOW)).toBeUndefined();
  });
});
