import { describe, expect, it } from 'vitest';
import { BodyCache } from './body-cache.ts';

describe('BodyCache', () => {
  it('keeps at most perTenant bodies per tenant and maxTenants tenants, dropping the oldest', () => {
    const cache = new BodyCache(2, 2);
    const a = cache.of('a');
    cache.put(a, 'h1', 1);
    cache.put(a, 'h2', 2);
    cache.put(a, 'h3', 3);
    expect([...a.keys()]).toEqual(['h2', 'h3']);
    cache.of('b');
    cache.of('a'); // a is now the most recently used
    cache.of('c');
    expect(cache.of('a').get('h3')).toBe(3);
    expect(cache.of('b').size).toBe(0); // b was dropped and starts empty
  });
});
