import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';

/** How the model call is retried: p-retry's exponential backoff, and how long a Retry-After may ask for. */
export interface RetryOptions {
  /** Retries after the first attempt. */
  readonly retries: number;
  readonly minTimeoutMs: number;
  readonly maxTimeoutMs: number;
  /** A Retry-After longer than this is not waited for: the call fails instead. */
  readonly maxRetryAfterMs: number;
}

/** Four retries, 0.5 s doubling to 8 s; a server may ask for up to a minute. */
export const DEFAULT_RETRY: RetryOptions = { retries: 4, minTimeoutMs: 500, maxTimeoutMs: 8_000, maxRetryAfterMs: 60_000 };

/** Whether a failed model call is tried again, after how long, and why (for the progress line). */
export type RetryPlan = { readonly retry: false; readonly why: string } | { readonly retry: true; readonly delayMs: number; readonly why: string };

/** Statuses worth another try: timeout, conflict, rate limit, and every server error. */
const RETRY_STATUS = (status: number) => status === 408 || status === 409 || status === 429 || status >= 500;

/** The server's Retry-After in ms (`retry-after-ms`, else `retry-after` as seconds or an HTTP date), or undefined. */
export function retryAfterMs(headers: Headers | undefined, now: number): number | undefined {
  const ms = headers?.get('retry-after-ms');
  if (ms != null && ms.trim() !== '' && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const after = headers?.get('retry-after');
  if (after == null || after.trim() === '') return undefined;
  if (Number.isFinite(Number(after))) return Math.max(0, Number(after) * 1000);
  const at = Date.parse(after);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** p-retry's own delay before retry number `retriesConsumed + 1` (randomize off). */
export const backoffMs = (retriesConsumed: number, o: RetryOptions): number => Math.min(o.minTimeoutMs * 2 ** retriesConsumed, o.maxTimeoutMs);

/**
 * Decides about one failed model call: a timeout, a dropped connection, 408/409/429 and 5xx are
 * retried — after the server's Retry-After when it sends one (bvl waits at most
 * `maxRetryAfterMs`), else after the backoff; an abort or any other status (400, 401, 404, …) is
 * not. `delayMs` is the total wait before the next attempt. Pure.
 */
export function retryPlan(error: unknown, retriesConsumed: number, options: RetryOptions, now: number): RetryPlan {
  if (error instanceof APIUserAbortError || (error as Error)?.name === 'AbortError') return { retry: false, why: 'aborted' };
  if (retriesConsumed >= options.retries) return { retry: false, why: `gave up after ${retriesConsumed + 1} attempts` };
  const backoff = backoffMs(retriesConsumed, options);
  if (error instanceof APIConnectionError)
    return { retry: true, delayMs: backoff, why: error instanceof APIConnectionTimeoutError ? 'the request timed out' : 'the connection failed' };
  if (error instanceof APIError && typeof error.status === 'number' && RETRY_STATUS(error.status)) {
    const after = retryAfterMs(error.headers, now);
    if (after !== undefined && after > options.maxRetryAfterMs)
      return {
        retry: false,
        why: `HTTP ${error.status}: the server asks to wait ${Math.ceil(after / 1000)} s, over the ${options.maxRetryAfterMs / 1000} s bvl waits`,
      };
    return { retry: true, delayMs: Math.max(backoff, after ?? 0), why: `HTTP ${error.status}${after !== undefined ? ` (Retry-After ${after} ms)` : ''}` };
  }
  return { retry: false, why: 'not a transient failure' };
}
