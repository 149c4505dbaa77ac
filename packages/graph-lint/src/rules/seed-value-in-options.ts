import { type FieldDef, optionValues, pointer, resolveField } from '@bvl/metadata';
import { defineRule } from '../define-rule.ts';
import { didYouMeanText, listing, q } from '../describe-names.ts';

const CHOICE_TYPES = new Set(['select', 'multiselect', 'radio', 'checkboxes']);

const optionCache = new WeakMap<FieldDef, { allowed: Set<string>; labels: Map<string, string> } | null>();

/** A field's option values and label → value map, computed once per field definition. */
function optionsOf(def: FieldDef): { allowed: Set<string>; labels: Map<string, string> } | null {
  let hit = optionCache.get(def);
  if (hit !== undefined) return hit;
  const values = optionValues(def);
  if (!values || values.length === 0) hit = null;
  else {
    const labels = new Map<string, string>();
    for (const o of def.options ?? []) if (typeof o === 'object' && o.label) labels.set(o.label.toLowerCase(), String(o.value));
    hit = { allowed: new Set(values), labels };
  }
  optionCache.set(def, hit);
  return hit;
}

/** A seed value for a select-like field that is not one of its option values: the server rejects the row. */
export default defineRule({
  meta: { name: 'seed-value-in-options', codes: ['seed_value_not_in_options'], docs: "Seed values of select-like fields are among the field's option values." },
  *check(graph) {
    for (const seed of graph.seeds.values()) {
      if (seed.invalid) continue;
      const obj = graph.objects.get(seed.object);
      if (!obj || obj.invalid) continue;
      for (const [i, rec] of seed.def.records.entries()) {
        for (const [key, value] of Object.entries(rec)) {
          const field = resolveField(obj, key);
          if (!field || field.invalid || !CHOICE_TYPES.has(field.def.type)) continue;
          const opts = optionsOf(field.def);
          if (!opts) continue;
          const { allowed, labels } = opts;
          // Pointers are built only for values that yield an issue (this loop visits every seeded value).
          const values: ReadonlyArray<readonly [unknown, number | undefined]> = Array.isArray(value)
            ? value.map((v, j) => [v, j] as const)
            : [[value, undefined]];
          for (const [v, j] of values) {
            if (v === null || v === undefined || (typeof v === 'object' && 'dialect' in v)) continue;
            const s = typeof v === 'object' ? (JSON.stringify(v) ?? 'null') : String(v);
            if (allowed.has(s)) continue;
            const path = j === undefined ? pointer('records', i, key) : pointer('records', i, key, j);
            const fixValue =
              labels.get(s.toLowerCase()) ?? [...allowed].find((a) => a.toLowerCase() === s.toLowerCase() || a === s.toLowerCase().replace(/[^a-z0-9]+/g, '_'));
            yield {
              code: 'seed_value_not_in_options',
              artifact: { type: 'seed', name: seed.name },
              ref: { type: 'object', name: obj.name, member: key },
              message: `Seed ${q(seed.name)} record ${i} sets ${field.def.type} field ${q(key)} to ${q(s)}, which is not one of its option values (${listing(allowed)}); the row is rejected.${didYouMeanText(fixValue ? [fixValue] : undefined)}`,
              fix: fixValue
                ? `Use the option value ${q(fixValue)} (values, not labels).`
                : `Use one of ${listing(allowed)}, or add option ${q(s)} to field ${q(key)} of ${q(obj.name)}.`,
              path,
              ...(fixValue ? { suggestions: [fixValue], patch: [{ op: 'replace' as const, path, value: fixValue }] } : {}),
            };
          }
        }
      }
    }
  },
});
