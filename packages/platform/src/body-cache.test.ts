import { describe, expect, it } from 'vitest';
import { BodyCache, bodyWeight } from './body-cache.ts';

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

describe('BodyCache weight', () => {
  const wide = (n: number) => ({ fields: Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, { type: 'text' }])) });

  it('weighs an object by its fields and a seed by its records times their width', () => {
    expect(bodyWeight(wide(10))).toBe(11);
    expect(bodyWeight({ object: 'a', records: [{ a: 1, b: 2 }, { a: 3 }] })).toBe(5);
    expect(bodyWeight('x')).toBe(1);
  });

  it('drops the least recently used bodies of all tenants past the total weight, never the one just kept; tracks deletes and clears', () => {
    const cache = new BodyCache(100, 10, 250);
    const a = cache.of('a');
    cache.put(a, 'a1', wide(99)); // 100
    const b = cache.of('b');
    cache.put(b, 'b1', wide(99)); // 200
    cache.put(b, 'b2', wide(99)); // 300 > 250: a1 (tenant a, least recently used) goes
    expect(a.has('a1')).toBe(false);
    expect([...b.keys()]).toEqual(['b1', 'b2']);
    expect(cache.weight).toBe(200);
    cache.put(b, 'b3', wide(99)); // b1 goes, the oldest of b
    expect([...b.keys()]).toEqual(['b2', 'b3']);
    cache.put(b, 'huge', wide(300)); // heavier than the whole bound: not kept, nothing dropped
    expect([...b.keys()]).toEqual(['b2', 'b3']);
    b.delete('b2');
    expect(cache.weight).toBe(100);
    b.clear();
    expect(cache.weight).toBe(0);
  });
});
