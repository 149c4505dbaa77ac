import { pointer, type SeedNode } from '@bvl/metadata';
import { defineRule, type SeedRecord } from '../define-rule.ts';
import { q } from '../describe-names.ts';
import { keyHash } from '../seed-key-hash.ts';

/** Whether a seed is judged here. */
const judged = (seed: SeedNode): boolean => !seed.invalid && seed.mode !== 'insert';

/**
 * A record's natural key as this rule partitions records by it: a single string key by the string
 * (`s…`), any other key by its values' JSON text (`j…`); undefined when the record has none (a
 * value null, unset or CEL). What a streamed lint hashes (see SeedPassContext.repeated).
 */
function keyText(seed: SeedNode): (rec: SeedRecord) => string | undefined {
  const ids = seed.externalId;
  const single = ids.length === 1 ? ids[0]! : undefined;
  return (rec) => {
    if (single !== undefined && typeof rec[single] === 'string') return `s${rec[single]}`;
    const values = new Array<unknown>(ids.length);
    for (let k = 0; k < ids.length; k++) {
      const v = rec[ids[k]!];
      if (v === null || v === undefined || (typeof v === 'object' && 'dialect' in v)) return undefined;
      values[k] = v;
    }
    return `j${JSON.stringify(values)}`;
  };
}

/**
 * Records of one seed that share its natural key (`externalId`, default `name`) are one row: the
 * upsert (or update, ignore, replace) merges them and the later record wins, so the object gets
 * fewer rows than the seed lists and the earlier record's values are lost. L3 counts the row
 * expectation by distinct key for the same reason. `insert` mode duplicates instead (its own rule).
 */
export default defineRule({
  meta: { name: 'seed-duplicate-keys', codes: ['seed_duplicate_key'], docs: "A seed's records have distinct natural keys." },
  *seedRepeats(graph) {
    for (const seed of graph.seeds.values())
      if (seed.stored !== undefined && judged(seed)) yield { seed, id: 'key', key: keyText(seed), fields: seed.externalId };
  },
  seedPass: (_graph, context) => (seed, emit) => {
    if (!judged(seed)) return undefined;
    // A stored seed, its keys hashed: only keys whose hash repeats can repeat; every other key is one
    // record's (counted, not kept), so the maps hold the few keys that may repeat.
    const repeated = seed.stored !== undefined ? context?.repeated(seed, 'key') : undefined;
    const keyOf = repeated ? keyText(seed) : undefined;
    let once = 0;
    // Keyed by the key's JSON text; a single string key (the common case) by the string itself,
    // in its own map: the same partition of the records, without a JSON text per record.
    const first = new Map<string, number>();
    const firstText = new Map<string, number>();
    let total = 0;
    const single = seed.externalId.length === 1 ? seed.externalId[0]! : undefined;
    // A repeat keeps its key's value as shown in the message (the record is not kept).
    const repeats: Array<{ i: number; first: number; shown: string }> = [];
    const ids = seed.externalId;
    const show = (rec: Readonly<Record<string, unknown>>, key: string) => (ids.length === 1 ? q(rec[ids[0]!]) : key);
    const records = (chunk: readonly Readonly<Record<string, unknown>>[], offset: number) => {
      total += chunk.length;
      for (let r = 0; r < chunk.length; r++) {
        const rec = chunk[r]!;
        const i = offset + r;
        if (keyOf) {
          const k = keyOf(rec);
          if (k === undefined) continue;
          if (!repeated!.has(keyHash(k))) {
            once++;
            continue;
          }
        }
        if (single !== undefined) {
          const v = rec[single];
          if (typeof v === 'string') {
            const at = firstText.get(v);
            if (at === undefined) firstText.set(v, i);
            else repeats.push({ i, first: at, shown: show(rec, JSON.stringify([v])) });
            continue;
          }
        }
        const values = new Array<unknown>(ids.length);
        let keyless = false;
        for (let k = 0; k < ids.length; k++) {
          const v = rec[ids[k]!];
          if (v === null || v === undefined || (typeof v === 'object' && 'dialect' in v)) {
            keyless = true;
            break;
          }
          values[k] = v;
        }
        if (keyless) continue;
        const key = JSON.stringify(values);
        const at = first.get(key);
        if (at === undefined) first.set(key, i);
        else repeats.push({ i, first: at, shown: show(rec, key) });
      }
    };
    // The findings wait for the last record: the message counts the seed's rows.
    const end = () => {
      const distinct = once + first.size + firstText.size;
      const keyless = total - distinct - repeats.length;
      for (const r of repeats) {
        const shown = r.shown;
        emit({
          code: 'seed_duplicate_key',
          artifact: { type: 'seed', name: seed.name },
          ref: { type: 'object', name: seed.object, member: seed.externalId.join(',') },
          message: `Seed ${q(seed.name)} record ${r.i} has the natural key ${shown} of record ${r.first} (${seed.externalId.join(' + ')}): the ${seed.mode} merges them and record ${r.i} wins, so object ${q(seed.object)} gets ${distinct + keyless} rows for ${total} records and record ${r.first}'s values are lost.`,
          fix: `Give record ${r.i} its own ${seed.externalId.join(' + ')}, or merge the two records into one.`,
          path: pointer('records', r.i, seed.externalId[0]!),
        });
      }
    };
    return { records, end };
  },
});
