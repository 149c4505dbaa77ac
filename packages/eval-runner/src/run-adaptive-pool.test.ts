import { describe, expect, it } from 'vitest';
import { RateLimitedError } from './eval-agent.ts';
import { type PoolEvent, runAdaptivePool } from './run-adaptive-pool.ts';

const tick = () => new Promise((r) => setTimeout(r, 5));
const fast = { baseMs: 5, maxMs: 20, maxRetries: 3 };

describe('runAdaptivePool', () => {
  it('never runs more than `concurrency` at once, and runs every item', async () => {
    let now = 0;
    let peak = 0;
    const done: number[] = [];
    await runAdaptivePool([1, 2, 3, 4, 5, 6, 7], { concurrency: 3, onGiveUp: async () => {} }, async (i) => {
      now++;
      peak = Math.max(peak, now);
      await tick();
      now--;
      done.push(i);
    });
    expect(peak).toBe(3);
    expect(done.sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('on a rate limit halves the items at once, pauses, retries the item first, then recovers one by one', async () => {
    const events: PoolEvent[] = [];
    const tries = new Map<number, number>();
    let now = 0;
    const peaks: number[] = [];
    await runAdaptivePool([1, 2, 3, 4, 5, 6, 7, 8], { concurrency: 4, backoff: fast, onGiveUp: async () => {}, onEvent: (e) => events.push(e) }, async (i) => {
      tries.set(i, (tries.get(i) ?? 0) + 1);
      now++;
      peaks.push(now);
      await tick();
      now--;
      if (i === 2 && tries.get(i) === 1) throw new RateLimitedError('429 Too Many Requests', 10);
    });
    expect(tries.get(2)).toBe(2);
    expect([...tries.values()].reduce((a, b) => a + b, 0)).toBe(9);
    expect(events[0]).toEqual({ kind: 'backoff', limit: 2, waitMs: 10 });
    expect(events.filter((e) => e.kind === 'recover').map((e) => e.limit)).toEqual([3, 4]);
  });

  it('gives an item up after maxRetries rate limits, through onGiveUp, and goes on with the rest', async () => {
    const given: Array<[number, string]> = [];
    const ran: number[] = [];
    let tries = 0;
    const onGiveUp = async (i: number, e: RateLimitedError) => {
      given.push([i, e.message]);
    };
    await runAdaptivePool([1, 2, 3], { concurrency: 2, backoff: fast, onGiveUp }, async (i) => {
      if (i === 1) tries++;
      if (i === 1) throw new RateLimitedError('slow down');
      ran.push(i);
    });
    expect(given).toEqual([[1, 'slow down']]);
    expect(tries).toBe(fast.maxRetries + 1);
    expect(ran.sort()).toEqual([2, 3]);
  });

  it('any other error stops new starts, lets those in flight finish, and is rethrown', async () => {
    const finished: number[] = [];
    const started: number[] = [];
    const run = runAdaptivePool([1, 2, 3, 4, 5], { concurrency: 2, onGiveUp: async () => {} }, async (i) => {
      started.push(i);
      if (i === 1) throw new Error('database went away');
      await tick();
      finished.push(i);
    });
    await expect(run).rejects.toThrow('database went away');
    expect(started).toEqual([1, 2]);
    expect(finished).toEqual([2]);
  });

  it('an abort stops new starts; those in flight finish', async () => {
    const ac = new AbortController();
    const finished: number[] = [];
    await runAdaptivePool([1, 2, 3, 4], { concurrency: 1, signal: ac.signal, onGiveUp: async () => {} }, async (i) => {
      await tick();
      if (i === 2) ac.abort();
      finished.push(i);
    });
    expect(finished).toEqual([1, 2]);
  });
});
