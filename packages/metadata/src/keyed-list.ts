/** Lists up to this long are searched; a longer one builds a Map index on its first lookup. */
const SCAN_UP_TO = 12;

/**
 * A read-only map over a list whose items carry their own key (a field's name, a measure's name, a
 * view's key): the graph's per-object and per-dataset indexes, thousands of them in a large stack.
 * It holds the list and nothing per entry — a Map holds a hash table of about twice its entries —
 * and finds a key by scanning the few items most lists have; a long list builds a Map on its
 * first lookup. Keys are unique (the builder keeps the item each key resolves to).
 */
export class KeyedList<V> implements ReadonlyMap<string, V> {
  private index: Map<string, V> | undefined;

  constructor(
    private readonly items: readonly V[],
    private readonly keyOf: (item: V) => string,
  ) {}

  get size(): number {
    return this.items.length;
  }

  get(key: string): V | undefined {
    const items = this.items;
    if (items.length > SCAN_UP_TO) return (this.index ??= new Map(items.map((v) => [this.keyOf(v), v]))).get(key);
    for (let i = 0; i < items.length; i++) if (this.keyOf(items[i]!) === key) return items[i];
    return undefined;
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  // The arrays' own iterators, not generators: a generator object per call and a result object per
  // step (yield* wraps the array's) cost ~7 MB a verify of the 12.4k-artifact stack, where an
  // optimized for…of over an array iterator allocates nothing per step. keyOf is pure and the list
  // fixed, so reading the keys when the iterator is made, not as it steps, answers the same.

  keys(): MapIterator<string> {
    const keyOf = this.keyOf;
    return this.items.map((v) => keyOf(v)).values();
  }

  values(): MapIterator<V> {
    return this.items.values();
  }

  entries(): MapIterator<[string, V]> {
    const keyOf = this.keyOf;
    return this.items.map((v): [string, V] => [keyOf(v), v]).values();
  }

  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries();
  }

  forEach(fn: (value: V, key: string, map: ReadonlyMap<string, V>) => void, thisArg?: unknown): void {
    for (const v of this.items) fn.call(thisArg, v, this.keyOf(v), this);
  }
}

/** The key of a named item (a field node, a measure, a dimension). */
export const nameOf = (item: { readonly name: string }): string => item.name;

/** The list of `keyed` (in first-set order, a later set of a key replacing the value in place), sized exactly. */
export const keyedList = <V>(keyed: ReadonlyMap<string, V>, keyOf: (item: V) => string): KeyedList<V> => new KeyedList([...keyed.values()], keyOf);
