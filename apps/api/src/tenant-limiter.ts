import { ApiError } from './to-error-response.ts';

/** How much of the service one tenant may use at once (per server process). */
export interface TenantLimits {
  /** Requests (or MCP tool calls) of one tenant that run at once. */
  readonly concurrency: number;
  /** Requests of one tenant that wait for a turn; past it a request is refused with 429. */
  readonly queue: number;
  /** Longest a request waits in the queue before it is refused with 429 (it never ran). */
  readonly queueWaitMs: number;
}

/** Defaults: 2 running and 16 waiting per tenant, a waiter gives up after 10 s. */
export const DEFAULT_TENANT_LIMITS: TenantLimits = { concurrency: 2, queue: 16, queueWaitMs: 10_000 };

/** A queued request whose client went away before its turn: it leaves the queue, nothing ran. */
export class ClientGoneError extends Error {
  override readonly name = 'ClientGoneError';
}

interface Waiter {
  readonly grant: () => void;
}

interface TenantState {
  running: number;
  readonly queue: Waiter[];
  /** Moving average of how long a turn is held (ms): what Retry-After is estimated from. */
  turnMs: number;
}

/** Seconds a refused caller is told to wait: at least 1, at most 60. */
const clampSeconds = (ms: number) => Math.min(60, Math.max(1, Math.ceil(ms / 1000)));

/**
 * Fair sharing between tenants: each tenant runs at most `concurrency` requests at once, and at
 * most `queue` more wait their turn, first come first served; past that a request is refused at
 * once with `too_many_requests` (429) and a `Retry-After` estimated from how long the tenant's
 * turns take. So one tenant's burst holds at most `concurrency` database connections and cores;
 * every other tenant's requests run beside it. A waiter whose client disconnects (its signal
 * aborts) leaves the queue; one that waits past `queueWaitMs` is refused (nothing ran).
 * In-process: each server process keeps its own counts.
 */
export class TenantLimiter {
  private readonly tenants = new Map<string, TenantState>();

  constructor(readonly limits: TenantLimits) {}

  /** The tenant's running and queued counts (tests, logs). */
  load(tenant: string): { running: number; queued: number } {
    const s = this.tenants.get(tenant);
    return { running: s?.running ?? 0, queued: s?.queue.length ?? 0 };
  }

  /**
   * Waits for a turn of `tenant`; resolves with the function that ends it (call it once the work is
   * done; later calls do nothing). Rejects with ApiError `too_many_requests` when the queue is full
   * or the wait is too long, and with {@link ClientGoneError} when `signal` aborts while waiting.
   */
  acquire(tenant: string, signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(new ClientGoneError('the client went away before its turn'));
    let s = this.tenants.get(tenant);
    if (!s) {
      s = { running: 0, queue: [], turnMs: 100 };
      this.tenants.set(tenant, s);
    }
    const state = s;
    if (state.running < this.limits.concurrency) {
      state.running++;
      return Promise.resolve(this.turn(tenant, state));
    }
    if (state.queue.length >= this.limits.queue) return Promise.reject(this.tooMany(tenant, state, 'queue'));
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const leave = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const at = state.queue.indexOf(waiter);
        if (at >= 0) state.queue.splice(at, 1);
        this.forget(tenant, state);
      };
      const onAbort = () => {
        leave();
        reject(new ClientGoneError('the client went away while waiting for its turn'));
      };
      const waiter: Waiter = {
        grant: () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve(this.turn(tenant, state));
        },
      };
      state.queue.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
      timer = setTimeout(() => {
        leave();
        reject(this.tooMany(tenant, state, 'wait'));
      }, this.limits.queueWaitMs);
    });
  }

  /** A turn: running until the returned function is called (once). */
  private turn(tenant: string, state: TenantState): () => void {
    const started = performance.now();
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      state.turnMs = 0.8 * state.turnMs + 0.2 * (performance.now() - started);
      const next = state.queue.shift();
      // The turn passes straight to the next waiter: running stays the same.
      if (next) next.grant();
      else {
        state.running--;
        this.forget(tenant, state);
      }
    };
  }

  private forget(tenant: string, state: TenantState): void {
    if (state.running === 0 && state.queue.length === 0 && this.tenants.get(tenant) === state) this.tenants.delete(tenant);
  }

  /** The 429: what is running and waiting, and when to come back. */
  private tooMany(tenant: string, state: TenantState, why: 'queue' | 'wait'): ApiError {
    const { concurrency, queue, queueWaitMs } = this.limits;
    // The queue ahead drains `concurrency` turns at a time.
    const retryAfter = clampSeconds((state.turnMs * (state.queue.length + 1)) / concurrency);
    const message =
      why === 'queue'
        ? `tenant ${JSON.stringify(tenant)} already has ${state.running} request(s) running and ${state.queue.length} waiting, the most this server takes per tenant (${concurrency} running, ${queue} waiting); retry after ${retryAfter} s`
        : `tenant ${JSON.stringify(tenant)} has ${state.running} request(s) running; this one waited ${Math.round(queueWaitMs / 1000)} s for a turn and did not run; retry after ${retryAfter} s`;
    return new ApiError('too_many_requests', message, undefined, { headers: { 'Retry-After': String(retryAfter) } });
  }
}

/** The limits from the environment (BVL_TENANT_CONCURRENCY, BVL_TENANT_QUEUE); a value that is not a positive whole number (0 for the queue) is an error. */
export function tenantLimitsFromEnv(env: Readonly<Record<string, string | undefined>>): Partial<TenantLimits> {
  const read = (name: string, min: number): number | undefined => {
    const raw = env[name]?.trim();
    if (!raw) return undefined;
    const v = Number(raw);
    if (!Number.isInteger(v) || v < min || v > 100_000)
      throw new Error(`${name} must be a whole number from ${min} to 100000 (got ${JSON.stringify(raw.slice(0, 40))})`);
    return v;
  };
  const concurrency = read('BVL_TENANT_CONCURRENCY', 1);
  const queue = read('BVL_TENANT_QUEUE', 0);
  return { ...(concurrency !== undefined ? { concurrency } : {}), ...(queue !== undefined ? { queue } : {}) };
}

/** BVL_VERIFY_WORKERS: worker threads for large verifies (0 to 64), or undefined when unset. */
export function verifyWorkersFromEnv(env: Readonly<Record<string, string | undefined>>): number | undefined {
  const raw = env.BVL_VERIFY_WORKERS?.trim();
  if (!raw) return undefined;
  const v = Number(raw);
  if (!Number.isInteger(v) || v < 0 || v > 64)
    throw new Error(`BVL_VERIFY_WORKERS must be a whole number from 0 to 64 (got ${JSON.stringify(raw.slice(0, 40))})`);
  return v;
}
