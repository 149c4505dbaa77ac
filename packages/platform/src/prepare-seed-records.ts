import { type ObjectNode, RELATION_TYPES, referenceOf, resolveField, type SeedNode } from '@bvl/metadata';
import { type ColumnType, columnTypeOf } from './column-type.ts';
import { isCelEnvelope } from './evaluate-cel.ts';
import { identifierProblem } from './identifier.ts';
import { type ColumnValue, toColumnValue } from './to-column-value.ts';

/** How a record key is written: its column, its type and (for lookups) the target. */
export interface FieldPlan {
  readonly column: string;
  readonly type: ColumnType;
  /** The field's type (`select`, `lookup`, …); absent for `id`. */
  readonly fieldType?: string;
  readonly relation?: { readonly target: string; readonly multiple: boolean };
}

/** A lookup of a prepared record, still to resolve: the natural keys (or ids) it names. */
export interface PreparedLookup {
  readonly field: string;
  readonly target: string;
  readonly multiple: boolean;
  readonly keys: string[];
}

/** A record ready to write: its index in the seed, its column values, and the lookups still to resolve. */
export interface Prepared {
  readonly index: number;
  readonly row: Record<string, unknown>;
  readonly lookups: PreparedLookup[];
  /** `updated_at` was filled in by the writer, not given by the record: a replay does not count it as a change. */
  readonly stamped?: boolean;
}

/** A record-level finding of a pure step: the record's index in the seed, why, and which field. */
export interface RecordProblem {
  readonly index: number;
  readonly message: string;
  readonly field?: string;
  /** The record is still written, without this value. */
  readonly dropped?: true;
}

/** How each record key of `object` is written (`id` included); undefined when the key is not a field. */
export function planField(object: ObjectNode, key: string): FieldPlan | undefined {
  if (key === 'id') return { column: 'id', type: { base: 'text', array: false } };
  const field = resolveField(object, key);
  if (!field || identifierProblem(key)) return undefined;
  const type = columnTypeOf(field.def);
  const fieldType = field.def.type;
  const target = RELATION_TYPES.has(fieldType) ? referenceOf(field.def) : undefined;
  return target ? { column: key, type, fieldType, relation: { target, multiple: field.def.multiple === true } } : { column: key, type, fieldType };
}

/** A memo of {@link planField} for one object (a seed plans each key once). */
export function fieldPlanner(object: ObjectNode): (key: string) => FieldPlan | undefined {
  const plans = new Map<string, FieldPlan | undefined>();
  return (key) => {
    if (!plans.has(key)) plans.set(key, planField(object, key));
    return plans.get(key);
  };
}

/** Field types that hold one chosen value unless `multiple`: a list given to one is refused, never stored as its JSON text. */
const SINGLE_CHOICE_TYPES = new Set(['select', 'radio']);

/** Why `value` cannot be the value of the single-value field `plan`, or undefined. */
function singleValueProblem(plan: FieldPlan, key: string, value: unknown): string | undefined {
  if (!Array.isArray(value) || plan.type.array) return undefined;
  if (plan.relation) return `row not written: a list was given to the single-value lookup "${key}"; write one natural-key string (or make the field multiple)`;
  if (plan.fieldType !== undefined && SINGLE_CHOICE_TYPES.has(plan.fieldType))
    return `row not written: a list was given to the single-value ${plan.fieldType} "${key}"; write one option value (or make the field multiple)`;
  return undefined;
}

/** toColumnValue, with a crash of the conversion turned into that value's error (never the seed's). */
function storableValue(value: unknown, type: ColumnType, now: Date): ColumnValue {
  try {
    return toColumnValue(value, type, now);
  } catch (e) {
    return { ok: false, error: `the value could not be converted: ${e instanceof Error ? e.message : String(e)}` };
  }
}

/** CEL results kept per seed run: a seed repeats a few sources (`daysAgo(3)`) over many records. */
export const CEL_CACHE_SIZE = 10_000;

/** {@link storableValue}, a CEL value's scalar result taken from `cache` when its source (for this column type) was evaluated before. */
function storableCached(value: unknown, type: ColumnType, now: Date, cache: Map<string, ColumnValue> | undefined): ColumnValue {
  if (!cache || !isCelEnvelope(value)) return storableValue(value, type, now);
  const key = `${type.base}${type.array ? '[]' : ''}\u0000${value.source}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const v = storableValue(value, type, now);
  // Only scalars are shared between rows (a list would be one object in many rows).
  if (cache.size < CEL_CACHE_SIZE && !(v.ok && typeof v.value === 'object' && v.value !== null)) cache.set(key, v);
  return v;
}

/** The keys of a lookup value: a natural-key string (or an array of them for `multiple`), or why it is unusable. */
export function lookupKeys(value: unknown, multiple: boolean): string[] | string {
  if (value === null || value === undefined) return [];
  const items = Array.isArray(value) ? value : [value];
  if (Array.isArray(value) && !multiple) return 'a list was given to a single-value lookup; write one natural-key string';
  const out: string[] = [];
  for (const item of items) {
    if (item === null || item === undefined) continue;
    if (typeof item === 'string' || typeof item === 'number') out.push(String(item));
    // Defect class #26: {externalId: 'X'} wrappers never resolved in ObjectStack either.
    else return `lookup value ${JSON.stringify(item)?.slice(0, 80)} is not a key string; write the target's natural key (e.g. its name) as a plain string`;
  }
  return out;
}

/** What {@link prepareSeedRecords} reads: the seed, its records' range, the planner, the clock. */
export interface PrepareInput {
  readonly seed: SeedNode;
  readonly planOf: (key: string) => FieldPlan | undefined;
  /** Records `[start, end)` of the seed are prepared. */
  readonly start: number;
  readonly end: number;
  /** Those records, record `start` first (a chunk read from the seed's source); default: `seed.def.records` from `start`. */
  readonly records?: readonly Readonly<Record<string, unknown>>[];
  readonly now: Date;
  readonly nowIso: string;
  /** Unknown keys already reported for this seed (reported once per seed); the step adds to it. */
  readonly unknownReported: Set<string>;
  /** CEL results of this seed run so far (against the same `now`); the step adds to it. */
  readonly celCache?: Map<string, ColumnValue>;
}

/** What {@link prepareSeedRecords} found: the records to write, the problems, and how many records were refused whole. */
export interface PrepareResult {
  readonly chunk: Prepared[];
  readonly problems: RecordProblem[];
  readonly refused: number;
}

/**
 * Turns seed records into column values, pure: each key planned as its field's column (an unknown
 * key is dropped and reported once per seed), each value converted to its column type (CEL against
 * `now`), lookup values split into the keys still to resolve, and `created_at`/`updated_at` filled.
 * A value that cannot be stored (a CEL value that does not evaluate, a list for a number, a list
 * for a single-value lookup or select) refuses its record, never the seed: each record is written
 * whole or not at all.
 */
export function prepareSeedRecords(input: PrepareInput): PrepareResult {
  const { seed, planOf } = input;
  const records = input.records ?? seed.def.records;
  const base = input.records ? input.start : 0;
  const chunk: Prepared[] = [];
  const problems: RecordProblem[] = [];
  let refusedCount = 0;
  for (let i = input.start; i < input.end; i++) {
    const record = records[i - base]!;
    const row: Record<string, unknown> = {};
    const lookups: PreparedLookup[] = [];
    let refused: { field: string; message: string } | undefined;
    for (const key in record) {
      const value = record[key];
      const plan = planOf(key);
      if (!plan) {
        if (!input.unknownReported.has(key))
          problems.push({
            index: i,
            message: `object "${seed.object}" has no field "${key}"; the value was dropped (reported once per seed)`,
            field: key,
            dropped: true,
          });
        input.unknownReported.add(key);
        continue;
      }
      const single = singleValueProblem(plan, key, value);
      if (single) {
        refused = { field: key, message: single };
        break;
      }
      if (plan.relation) {
        const keys = lookupKeys(value, plan.relation.multiple);
        if (typeof keys === 'string') problems.push({ index: i, message: keys, field: key, dropped: true });
        else if (keys.length === 0) row[plan.column] = plan.relation.multiple && Array.isArray(value) ? [] : null;
        else lookups.push({ field: key, target: plan.relation.target, multiple: plan.relation.multiple, keys });
        continue;
      }
      const v = storableCached(value, plan.type, input.now, input.celCache);
      if (v.ok) row[plan.column] = v.value;
      else {
        refused = { field: key, message: `row not written: ${v.error}` };
        break;
      }
    }
    if (refused) {
      refusedCount++;
      problems.push({ index: i, message: refused.message, field: refused.field });
      continue;
    }
    if (!('created_at' in row) && planOf('created_at')) row.created_at = input.nowIso;
    const stamped = !('updated_at' in row) && planOf('updated_at') !== undefined;
    if (stamped) row.updated_at = input.nowIso;
    chunk.push(stamped ? { index: i, row, lookups, stamped } : { index: i, row, lookups });
  }
  return { chunk, problems, refused: refusedCount };
}
