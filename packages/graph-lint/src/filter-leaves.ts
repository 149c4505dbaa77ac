/** One field condition of a Mongo-style filter: the field, its condition value, and where it sits. */
export interface FilterLeaf {
  readonly field: string;
  readonly value: unknown;
  readonly at: ReadonlyArray<string | number>;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Deepest logical nesting walked (a filter nested deeper is the compiler's to refuse). */
const MAX_DEPTH = 32;

/**
 * The field conditions of a Mongo-style filter (`{status: 'open', $or: [{amount: {$gt: 5}}]}`),
 * through `$and`/`$or` arrays and `$not`, each with its path under `at`, in document order. Pure;
 * never throws. An array, not a generator: every rule walks every filter of the stack, and a
 * generator (with an entry pair per key) cost more than the walk.
 */
export function filterLeaves(filter: unknown, at: ReadonlyArray<string | number> = [], depth = 0): FilterLeaf[] {
  const out: FilterLeaf[] = [];
  collect(filter, at, depth, out);
  return out;
}

function collect(filter: unknown, at: ReadonlyArray<string | number>, depth: number, out: FilterLeaf[]): void {
  if (!isRecord(filter) || depth > MAX_DEPTH) return;
  const keys = Object.keys(filter);
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k]!;
    const value = filter[key];
    if (key === '$and' || key === '$or' || key === '$nor') {
      if (Array.isArray(value)) for (let i = 0; i < value.length; i++) collect(value[i], [...at, key, i], depth + 1, out);
    } else if (key === '$not') collect(value, [...at, key], depth + 1, out);
    else if (!key.startsWith('$')) out.push({ field: key, value, at: [...at, key] });
  }
}
