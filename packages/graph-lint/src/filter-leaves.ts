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
 * through `$and`/`$or` arrays and `$not`, each with its path under `at`. Pure; never throws.
 */
export function* filterLeaves(filter: unknown, at: ReadonlyArray<string | number> = [], depth = 0): Generator<FilterLeaf> {
  if (!isRecord(filter) || depth > MAX_DEPTH) return;
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and' || key === '$or' || key === '$nor') {
      if (Array.isArray(value)) for (const [i, sub] of value.entries()) yield* filterLeaves(sub, [...at, key, i], depth + 1);
    } else if (key === '$not') yield* filterLeaves(value, [...at, key], depth + 1);
    else if (!key.startsWith('$')) yield { field: key, value, at: [...at, key] };
  }
}
