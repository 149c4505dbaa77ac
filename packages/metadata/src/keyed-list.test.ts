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

  // Callers spread them, for…of them or step them by hand: each must be an iterator (next) that is
  // its own iterable, fresh per call, stepping as Map's does.
  for (const n of [0, 2, 13])
    it(`keys, values and entries step as Map's do (${n} items)`, () => {
      const list = items(n);
      const keyed = new KeyedList(list, nameOf);
      const map = new Map(list.map((v) => [v.name, v]));
      const pairs = [
        [keyed.keys(), map.keys()],
        [keyed.values(), map.values()],
        [keyed.entries(), map.entries()],
        [keyed[Symbol.iterator](), map[Symbol.iterator]()],
      ] as const;
      for (const [mine, theirs] of pairs) {
        expect(mine[Symbol.iterator]()).toBe(mine);
        expect(mine.next()).toEqual(theirs.next());
        expect([...mine]).toEqual([...theirs]);
        expect(mine.next()).toEqual(theirs.next());
        expect(mine.next()).toEqual({ value: undefined, done: true });
      }
      expect([...keyed.entries()]).toEqual([...keyed.entries()]);
      if (n > 0) expect(keyed.entries().next().value).not.toBe(keyed.entries().next().value);
      const spread: Array<[string, unknown]> = [];
      for (const e of keyed) spread.push(e);
      expect(spread).toEqual([...map]);
    });
});
