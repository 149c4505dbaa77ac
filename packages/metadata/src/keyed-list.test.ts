import { describe, expect, it } from 'vitest';
import { KeyedList, nameOf } from './keyed-list.ts';

const items = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `k${i}`, i }));

describe('KeyedList', () => {
  for (const n of [0, 3, 12, 13, 40])
    it(`answers as the Map of its items would (${n} items)`, () => {
      const list = items(n);
      const keyed = new KeyedList(list, nameOf);
      const map = new Map(list.map((v) => [v.name, v]));
      expect(keyed.size).toBe(map.size);
      expect([...keyed]).toEqual([...map]);
      expect([...keyed.keys()]).toEqual([...map.keys()]);
      expect([...keyed.values()]).toEqual([...map.values()]);
      for (const key of ['k0', `k${n - 1}`, `k${n}`, 'missing', '']) expect([keyed.get(key), keyed.has(key)], key).toEqual([map.get(key), map.has(key)]);
      const seen: string[] = [];
      keyed.forEach((v, k, m) => {
        expect(m).toBe(keyed);
        seen.push(`${k}=${v.i}`);
      });
      expect(seen).toEqual(list.map((v) => `${v.name}=${v.i}`));
    });
});
