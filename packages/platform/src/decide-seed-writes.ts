import type { ObjectNode, SeedNode } from '@bvl/metadata';
import type { Prepared, RecordProblem } from './prepare-seed-records.ts';
import { writeContractProblem } from './write-contract.ts';

/** One row to write: the prepared record (merged with later records of its key) and the row id. */
export interface RowWrite {
  p: Prepared;
  readonly id: string;
}

/** What {@link decideSeedWrites} reads. */
export interface DecideInput {
  readonly seed: SeedNode;
  readonly object: ObjectNode;
  /** The prepared records of one chunk, lookups resolved. */
  readonly chunk: readonly Prepared[];
  /** No usable externalId: every record is inserted. */
  readonly keyless: boolean;
  /** Record index → id of the existing row of its externalId; '' when its key could not be matched (already reported). */
  readonly matches: ReadonlyMap<number, string>;
  /**
   * externalId → row id of the keys this chunk writes (and of keys an earlier chunk's insert failed
   * to write, which the writer puts in first): the decision adds the keys it writes, so a later
   * record of a key updates the row an earlier wrote. Keys earlier chunks wrote come as `matches`
   * (their rows are in the table), so this map holds a chunk's keys, not the seed's.
   */
  readonly seen: Map<string, string>;
  /** The record a prepared record came from, by its index in the seed (default: `seed.def.records[index]`). */
  readonly recordOf?: (index: number) => Readonly<Record<string, unknown>>;
  /** A new row id (random in the writer; fixed in tests). */
  readonly newId: () => string;
}

/** What to write for one chunk, and what was decided without a write. */
export interface SeedWrites {
  readonly inserts: RowWrite[];
  readonly updates: RowWrite[];
  /** Record index → the row id it writes (where its deferred lookups land). */
  readonly rowIds: Map<number, string>;
  readonly problems: RecordProblem[];
  /** Records not written (mode `update` without a row, or refused by the write contract). */
  readonly failed: number;
  /** Records `ignore` left as they are. */
  readonly skipped: number;
  /** Records merged into an earlier record's pending update of the same key (each counts as updated). */
  readonly merged: number;
}

/** The externalId values as one key text; undefined when a part is missing (the record cannot be matched). */
export const keyText = (values: readonly unknown[]): string | undefined =>
  values.some((v) => v === null || v === undefined) ? undefined : JSON.stringify(values.map(String));

/** A single-field key: the value's text (what keyText's JSON holds), undefined when missing. */
const singleKey = (v: unknown): string | undefined => (v === null || v === undefined ? undefined : typeof v === 'string' ? v : String(v));

/** The record's externalId as the text {@link decideSeedWrites} compares keys by; undefined when a part is missing. */
export function seedKeyOf(seed: SeedNode, row: Readonly<Record<string, unknown>>): string | undefined {
  return seed.externalId.length === 1 ? singleKey(row[seed.externalId[0]!]) : keyText(seed.externalId.map((k) => row[k]));
}

/**
 * Decides, pure, what each prepared record of a chunk writes under the seed's mode: insert (a new
 * key, mode `insert`, or no usable externalId), update (its key has a row), skip (`ignore` and a
 * row exists), or nothing (`update` without a row; a record ObjectStack's write contract refuses).
 * Two records of one key write one row: the later merges into the pending write, so the result is
 * the same on a first publish and on every replay.
 */
export function decideSeedWrites(input: DecideInput): SeedWrites {
  const { seed, keyless, matches, seen } = input;
  const inserts: RowWrite[] = [];
  const updates: RowWrite[] = [];
  const rowIds = new Map<number, string>();
  const problems: RecordProblem[] = [];
  const pendingById = new Map<string, RowWrite>();
  let failed = 0;
  let skipped = 0;
  let merged = 0;
  for (const p of input.chunk) {
    if (matches.get(p.index) === '') continue; // its key could not be matched: reported, not written
    // One key field: its text is the key (the same partition as keyText's, and the string the record already holds).
    const key = keyless ? undefined : seedKeyOf(seed, p.row);
    const existing = key === undefined ? undefined : (seen.get(key) ?? matches.get(p.index));
    const write = seed.mode === 'insert' || existing === undefined ? 'insert' : seed.mode === 'ignore' ? 'skip' : 'update';
    if (seed.mode === 'update' && existing === undefined) {
      failed++;
      problems.push({
        index: p.index,
        message: `mode 'update' found no "${seed.object}" row with ${seed.externalId.map((k) => `${k} = ${JSON.stringify(p.row[k] ?? null)}`).join(' and ')}; nothing was written`,
      });
      continue;
    }
    if (write === 'skip') {
      // 'ignore' leaves an existing row exactly as it is, lookups included.
      skipped++;
      continue;
    }
    // ObjectStack's record validator runs before the database: a record it rejects is not written.
    const refused = writeContractProblem(input.object, input.recordOf ? input.recordOf(p.index) : seed.def.records[p.index]!, write);
    if (refused) {
      failed++;
      problems.push({ index: p.index, message: refused.message, field: refused.field });
      continue;
    }
    const id = write === 'update' ? existing! : typeof p.row.id === 'string' ? p.row.id : input.newId();
    rowIds.set(p.index, id);
    if (key !== undefined) seen.set(key, id);
    const pending = write === 'update' ? pendingById.get(id) : undefined;
    if (pending) {
      // Stamped only if neither record gave updated_at itself.
      const stamped = pending.p.stamped === true && p.stamped === true;
      pending.p = { index: pending.p.index, row: { ...pending.p.row, ...p.row }, lookups: pending.p.lookups, ...(stamped ? { stamped } : {}) };
      merged++;
      continue;
    }
    const entry: RowWrite = { p, id };
    pendingById.set(id, entry);
    (write === 'insert' ? inserts : updates).push(entry);
  }
  return { inserts, updates, rowIds, problems, failed, skipped, merged };
}
