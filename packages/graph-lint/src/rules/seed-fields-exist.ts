import { allFieldNames, pointer, resolveField } from '@bvl/metadata';
import { defineRule } from '../define-rule.ts';
import { didYouMeanText, listing, q, suggest } from '../describe-names.ts';

/** A seed record key that is no field of the object: the value is silently dropped. One issue per key, not per record. */
export default defineRule({
  meta: { name: 'seed-fields-exist', codes: ['unknown_field'], docs: "Every seed record key is a field of the seed's object." },
  seedPass: (graph) => (seed, emit) => {
    if (seed.invalid) return undefined;
    const obj = graph.objects.get(seed.object);
    if (!obj || obj.invalid) return undefined;
    const firstAt = new Map<string, number>();
    const count = new Map<string, number>();
    const records = (chunk: readonly Readonly<Record<string, unknown>>[], offset: number) => {
      for (let r = 0; r < chunk.length; r++) {
        const keys = Object.keys(chunk[r]!);
        for (let k = 0; k < keys.length; k++) {
          const key = keys[k]!;
          if (resolveField(obj, key)) continue;
          if (!firstAt.has(key)) firstAt.set(key, offset + r);
          count.set(key, (count.get(key) ?? 0) + 1);
        }
      }
    };
    // The findings wait for the last record: a key's count and first record are known only then.
    const end = () => {
      // The field names are listed only in a finding: a clean seed never builds them.
      let names: string[] | undefined;
      const fieldNames = () => (names ??= allFieldNames(obj));
      for (const [k, ext] of seed.externalId.entries()) {
        if (resolveField(obj, ext)) continue;
        const candidates = fieldNames();
        const path = Array.isArray(seed.def.externalId) ? pointer('externalId', k) : pointer('externalId');
        const s = suggest(ext, candidates, path);
        emit({
          code: 'unknown_field',
          artifact: { type: 'seed', name: seed.name },
          ref: { type: 'object', name: obj.name, member: ext },
          message: `Seed ${q(seed.name)} keys its records by ${q(ext)}${seed.def.externalId === undefined ? ' (the default externalId)' : ''}, but object ${q(obj.name)} has no such field (it has: ${listing(candidates)}); no record can be upserted or referenced by that key.${didYouMeanText(s.suggestions)}`,
          fix:
            seed.def.externalId === undefined
              ? `Set the seed's externalId to a unique field of ${q(obj.name)}.`
              : `Point externalId at a field of ${q(obj.name)}${s.suggestions?.length ? `, e.g. ${q(s.suggestions[0])}` : ''}.`,
          path: seed.def.externalId === undefined ? '' : path,
          ...(seed.def.externalId === undefined ? (s.suggestions ? { suggestions: s.suggestions } : {}) : s),
        });
      }
      for (const [key, i] of firstAt) {
        const candidates = fieldNames();
        const n = count.get(key) ?? 1;
        const s = suggest(key, candidates, undefined);
        emit({
          code: 'unknown_field',
          artifact: { type: 'seed', name: seed.name },
          ref: { type: 'object', name: obj.name, member: key },
          message: `Seed ${q(seed.name)} sets ${q(key)} in ${n} record(s) (first: record ${i}), but object ${q(obj.name)} has no such field (it has: ${listing(candidates)}); the values are dropped.${didYouMeanText(s.suggestions)}`,
          fix: s.suggestions?.length
            ? `Rename key ${q(key)} to ${q(s.suggestions[0])} in the seed's records, or add field ${q(key)} to ${q(obj.name)}.`
            : `Add field ${q(key)} to object ${q(obj.name)}, or remove it from the seed's records.`,
          path: pointer('records', i, key),
          ...(s.suggestions ? { suggestions: s.suggestions } : {}),
        });
      }
    };
    return { records, end };
  },
});
