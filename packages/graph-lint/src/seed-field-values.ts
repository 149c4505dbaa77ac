import { type FieldNode, type Graph, type ObjectNode, pointer, resolveField, type SeedNode } from '@bvl/metadata';
import { heldRecords } from './define-rule.ts';

/** A CEL envelope (`{dialect: 'cel', source}`): computed at publish, never judged statically. */
export const isCel = (v: unknown): boolean => typeof v === 'object' && v !== null && !Array.isArray(v) && 'dialect' in v;

/** One seeded value of a field; an array value yields each element with its index. */
export interface SeedFieldValue {
  readonly seed: SeedNode;
  readonly object: ObjectNode;
  readonly field: FieldNode;
  readonly record: number;
  readonly key: string;
  readonly value: unknown;
  /** The pointer to the value, built on demand (this walk visits every seeded value). */
  path(): string;
}

/**
 * Visits every non-null, non-CEL value that valid seeds of existing objects set on fields `accept`
 * picks, array elements one by one, in seed, record and key order (a plain walk: no generator step per value). Seeds, objects or fields that failed their schema are not walked.
 * `fine`, when given, passes over the values it returns true for without yielding them: a rule
 * that judges a value by itself says so there, and the walk builds nothing for the values it passes
 * (a million-row seed is almost all of them).
 */
export function seedFieldValues(
  graph: Graph,
  accept: (field: FieldNode) => boolean,
  fine: ((field: FieldNode, value: unknown) => boolean) | undefined,
  visit: (value: SeedFieldValue) => void,
): void {
  for (const seed of graph.seeds.values()) {
    const walk = seedValueWalker(graph, seed, accept, fine, visit);
    walk?.(heldRecords(seed), 0);
  }
}

/**
 * The walk of {@link seedFieldValues} over one seed, fed its records in chunks: `walk(chunk, offset)`
 * visits the values of records `offset …` in order, so a seed read from storage part by part is
 * walked as if whole (same values, same record indices). Undefined when the seed is not walked.
 */
export function seedValueWalker(
  graph: Graph,
  seed: SeedNode,
  accept: (field: FieldNode) => boolean,
  fine: ((field: FieldNode, value: unknown) => boolean) | undefined,
  visit: (value: SeedFieldValue) => void,
): ((records: readonly Readonly<Record<string, unknown>>[], offset: number) => void) | undefined {
  if (seed.invalid) return undefined;
  const object = graph.objects.get(seed.object);
  if (!object || object.invalid) return undefined;
  // Indexed loops: this walk visits every seeded value, twice per verify (cold code, mostly).
  // Each key is resolved and judged once per seed (null: not walked).
  const accepted = new Map<string, FieldNode | null>();
  return (records, offset) => {
    for (let r = 0; r < records.length; r++) {
      const rec = records[r]!;
      const record = offset + r;
      const keys = Object.keys(rec);
      for (let k = 0; k < keys.length; k++) {
        const key = keys[k]!;
        let field = accepted.get(key);
        if (field === undefined) {
          const f = resolveField(object, key);
          field = !f || f.invalid || !accept(f) ? null : f;
          accepted.set(key, field);
        }
        if (field === null) continue;
        const raw = rec[key];
        if (raw === null || raw === undefined || isCel(raw)) continue;
        if (!Array.isArray(raw)) {
          if (fine?.(field, raw)) continue;
          visit({ seed, object, field, record, key, value: raw, path: () => pointer('records', record, key) });
          continue;
        }
        for (let j = 0; j < raw.length; j++) {
          const value: unknown = raw[j];
          if (value === null || value === undefined || isCel(value) || fine?.(field, value)) continue;
          visit({ seed, object, field, record, key, value, path: () => pointer('records', record, key, j) });
        }
      }
    }
  };
}
