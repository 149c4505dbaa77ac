import { describe, expect, it } from 'vitest';
import { ClientGoneError, TenantLimiter, tenantLimitsFromEnv, verifyWorkersFromEnv } from './tenant-limiter.ts';
import { ApiError } from './to-error-response.ts';

const settled = async <T>(p: Promise<T>) => {
  let state: 'pending' | 'done' | 'failed' = 'pending';
  p.then(
    () => (state = 'done'),
    () => (state = 'failed'),
  );
  await new Promise((r) => setTimeout(r, 0));
  return state;
};

describe('TenantLimiter', () => {
  it('runs `concurrency` turns, queues `queue` more first come first served, refuses the rest with 429 and Retry-After', async () => {
    const l = new TenantLimiter({ concurrency: 2, queue: 2, queueWaitMs: 60_000 });
    const a = await l.acquire('t');
    await l.acquire('t');
    const order: string[] = [];
    const c = l.acquire('t').then((end) => {
      order.push('c');
      return end;
    });
    const d = l.acquire('t').then((end) => {
      order.push('d');
      return end;
    });
    expect(l.load('t')).toEqual({ running: 2, queued: 2 });
    const refused = await l.acquire('t').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).code).toBe('too_many_requests');
    expect(Number((refused as ApiError).extra.headers?.['Retry-After'])).toBeGreaterThanOrEqual(1);
    // Another tenant is not counted against this one.
    (await l.acquire('u'))();
    a();
    a(); // a second call does nothing
    (await c)();
    expect(order).toEqual(['c']);
    (await d)();
    expect(order).toEqual(['c', 'd']);
    expect(l.load('t')).toEqual({ running: 1, queued: 0 });
  });

  it('a waiter whose signal aborts leaves the queue; one that waits too long is refused; neither takes a turn', async () => {
    const l = new TenantLimiter({ concurrency: 1, queue: 2, queueWaitMs: 50 });
    const end = await l.acquire('t');
    const gone = new AbortController();
    const leaving = l.acquire('t', gone.signal);
    const slow = l.acquire('t');
    expect(l.load('t').queued).toBe(2);
    gone.abort();
    await expect(leaving).rejects.toBeInstanceOf(ClientGoneError);
    expect(l.load('t').queued).toBe(1);
    await expect(slow).rejects.toMatchObject({ code: 'too_many_requests', message: expect.stringMatching(/waited 0 s for a turn and did not run/) });
    expect(l.load('t')).toEqual({ running: 1, queued: 0 });
    end();
    expect(l.load('t')).toEqual({ running: 0, queued: 0 });
    await expect(l.acquire('t', AbortSignal.abort())).rejects.toBeInstanceOf(ClientGoneError);
    expect(await settled(l.acquire('t'))).toBe('done');
  });

  it('reads its limits from the environment, refusing nonsense', () => {
    expect(tenantLimitsFromEnv({})).toEqual({});
    expect(tenantLimitsFromEnv({ BVL_TENANT_CONCURRENCY: '4', BVL_TENANT_QUEUE: '0' })).toEqual({ concurrency: 4, queue: 0 });
    expect(() => tenantLimitsFromEnv({ BVL_TENANT_CONCURRENCY: '0' })).toThrow('BVL_TENANT_CONCURRENCY must be a whole number from 1 to 100000 (got "0")');
    expect(() => tenantLimitsFromEnv({ BVL_TENANT_QUEUE: 'lots' })).toThrow('BVL_TENANT_QUEUE must be a whole number from 0 to 100000 (got "lots")');
    expect(verifyWorkersFromEnv({ BVL_VERIFY_WORKERS: '0' })).toBe(0);
    expect(() => verifyWorkersFromEnv({ BVL_VERIFY_WORKERS: '-1' })).toThrow('BVL_VERIFY_WORKERS must be a whole number from 0 to 64');
  });
});
