import { RateLimitedError } from './eval-agent.ts';

/** How the pool backs off when an agent is rate limited. */
export interface BackoffOptions {
  /** First pause when the endpoint gives no Retry-After; doubles per retry of the same item. */
  readonly baseMs: number;
  /** The longest pause. */
  readonly maxMs: number;
  /** Retries of one item before it is given up (then reported through `onGiveUp`). */
  readonly maxRetries: number;
}

/** Defaults: 2 s, doubling up to a minute, six retries (about three minutes of trying). */
export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 2_000, maxMs: 60_000, maxRetries: 6 };

/** What the pool tells as it backs off or recovers (the progress line shows it). */
export interface PoolEvent {
  readonly kind: 'backoff' | 'recover';
  /** Items that may run at once now. */
  readonly limit: number;
  readonly waitMs?: number;
}

/** The pool's inputs. */
export interface AdaptivePoolOptions<T> {
  /** Items at once, at most (the ceiling the pool recovers to). */
  readonly concurrency: number;
  readonly backoff?: BackoffOptions | undefined;
  /** Stop starting items; those in flight finish. */
  readonly signal?: AbortSignal | undefined;
  /** An item rate limited more than `maxRetries` times. */
  readonly onGiveUp: (item: T, error: RateLimitedError) => Promise<void>;
  readonly onEvent?: ((event: PoolEvent) => void) | undefined;
}

const pause = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

/**
 * Runs `work` over the items, at most `concurrency` at once, backing off on rate limits: a
 * {@link RateLimitedError} halves the items allowed at once (at least one), pauses every start for
 * the endpoint's Retry-After or an exponential pause (with jitter, so many workers do not return in
 * step), and puts the item back first in line; each success afterwards allows one more, up to the
 * ceiling. Any other error from `work` stops new starts and is rethrown once the items in flight
 * have finished — `work` is expected to turn an attempt's own failures into results.
 */
export async function runAdaptivePool<T>(items: readonly T[], options: AdaptivePoolOptions<T>, work: (item: T) => Promise<void>): Promise<void> {
  const ceiling = Math.max(1, Math.floor(options.concurrency));
  const backoff = options.backoff ?? DEFAULT_BACKOFF;
  const queue = items.map((item) => ({ item, tries: 0 }));
  const running = new Set<Promise<void>>();
  let limit = ceiling;
  let pausedUntil = 0;
  let failure: { error: unknown } | undefined;
  const stopped = () => failure !== undefined || options.signal?.aborted === true;

  const start = (job: { item: T; tries: number }) => {
    const p = (async () => {
      try {
        await work(job.item);
        if (limit < ceiling) {
          limit++;
          options.onEvent?.({ kind: 'recover', limit });
        }
      } catch (e) {
        if (!(e instanceof RateLimitedError)) {
          failure ??= { error: e };
          return;
        }
        job.tries++;
        if (job.tries > backoff.maxRetries) {
          await options.onGiveUp(job.item, e).catch((err: unknown) => {
            failure ??= { error: err };
          });
          return;
        }
        limit = Math.max(1, Math.floor(limit / 2));
        const exponential = Math.min(backoff.maxMs, backoff.baseMs * 2 ** (job.tries - 1)) * (0.5 + Math.random() / 2);
        const waitMs = Math.min(backoff.maxMs, e.retryAfterMs ?? exponential);
        pausedUntil = Math.max(pausedUntil, Date.now() + waitMs);
        queue.unshift(job);
        options.onEvent?.({ kind: 'backoff', limit, waitMs });
      }
    })();
    const tracked = p.finally(() => running.delete(tracked));
    running.add(tracked);
  };

  while (running.size > 0 || (queue.length > 0 && !stopped())) {
    const wait = pausedUntil - Date.now();
    if (!stopped() && queue.length > 0 && running.size < limit && wait <= 0) {
      start(queue.shift()!);
      continue;
    }
    const waiters: Promise<void>[] = [...running];
    if (!stopped() && queue.length > 0 && wait > 0) waiters.push(pause(wait, options.signal));
    if (waiters.length === 0) break;
    await Promise.race(waiters);
  }
  if (failure) throw failure.error;
}
