/** The brand of a {@link StoredRecords}: a symbol key, which no parsed JSON can hold. */
const STORED_RECORDS = Symbol.for('bvl.storedRecords');

/**
 * A seed's record list that is not held in memory (issue 21): what a store puts in a large seed
 * body in place of its `records` (or `data`, `rows`) list — how many records the list has and an
 * opaque handle to where they are stored (the platform's `StoredSeed`). The graph makes such a
 * seed a node with `stored` set, `recordCount` the count and `def.records` empty; its records are
 * read through a source, part by part. Only objects (every record a JSON object) are stored so: a
 * list with another value in it is read whole, so the schema judges it as always.
 *
 * Branded by a symbol-keyed member, not a plain key or class identity: user JSON cannot forge one,
 * and a second copy of this module (sources and built code in one process) still recognises it.
 */
export class StoredRecords {
  readonly [STORED_RECORDS] = true;

  constructor(
    /** How many records the stored list has. */
    readonly count: number,
    /** Where they are (opaque here). */
    readonly handle: unknown,
  ) {}
}

/** The stored record list `v` stands for, or undefined when `v` is anything else (a list, a JSON value). */
export function storedRecordsOf(v: unknown): StoredRecords | undefined {
  return typeof v === 'object' && v !== null && (v as { [STORED_RECORDS]?: unknown })[STORED_RECORDS] === true ? (v as StoredRecords) : undefined;
}
