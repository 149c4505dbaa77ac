import { describe, expect, it } from 'vitest';
import { keyHash, keyHash2, repeatedPairs } from './seed-key-hash.ts';

const hashed = (keys: readonly string[]) => ({
  first: Uint32Array.from(keys.map(keyHash)),
  second: Uint32Array.from(keys.map(keyHash2)),
});

describe('repeatedPairs', () => {
  it('tells keys whose keyHash collides from keys that repeat', () => {
    // An FNV-1a pair: the same keyHash, different keys.
    expect(keyHash('sK-74354')).toBe(keyHash('sK-507580'));
    expect(keyHash2('sK-74354')).not.toBe(keyHash2('sK-507580'));
    const collide = hashed(['sK-74354', 'a', 'sK-507580']);
    expect(repeatedPairs(collide.first, collide.second, 3)).toEqual(new Set());
    const repeat = hashed(['sK-74354', 'a', 'sK-507580', 'a', 'sK-74354']);
    expect(repeatedPairs(repeat.first, repeat.second, 5)).toEqual(new Set([keyHash('a'), keyHash('sK-74354')]));
    // Only the first n keys count, and the lists are left as they were.
    expect(repeatedPairs(repeat.first, repeat.second, 3)).toEqual(new Set());
    expect([...repeat.first]).toEqual(['sK-74354', 'a', 'sK-507580', 'a', 'sK-74354'].map(keyHash));
  });

  it('finds no pair among a million distinct keys hashed both ways', () => {
    const n = 1_000_000;
    const first = new Uint32Array(n);
    const second = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      const k = `sR-${i}`;
      first[i] = keyHash(k);
      second[i] = keyHash2(k);
    }
    expect(repeatedPairs(first, second, n).size).toBe(0);
  });
});
