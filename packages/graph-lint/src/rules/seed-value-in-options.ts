import { type FieldDef, type FieldNode, optionValues } from '@bvl/metadata';
import { defineRule } from '../define-rule.ts';
import { didYouMeanText, listing, q } from '../describe-names.ts';
import { seedValueWalker } from '../seed-field-values.ts';

const CHOICE_TYPES = new Set(['select', 'multiselect', 'radio', 'checkboxes']);

type Options = { allowed: Set<string>; labels: Map<string, string> } | null;

/**
 * A field's option values and label → value map, computed once per field definition per run: the
 * cache is the check's own, so nothing outlives it (a module-wide cache keyed by the definitions
 * was held as long as the caller's artifact set).
 */
function optionsOf(def: FieldDef, optionCache: Map<FieldDef, Options>): Options {
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
  seedPass(graph) {
    const cache = new Map<FieldDef, Options>();
    const text = (v: unknown) => (typeof v === 'object' ? (JSON.stringify(v) ?? 'null') : String(v));
    const fine = (f: FieldNode, v: unknown) => optionsOf(f.def, cache)!.allowed.has(text(v));
    return (seed, emit) => {
      const walk = seedValueWalker(
        graph,
        seed,
        (f) => CHOICE_TYPES.has(f.def.type) && optionsOf(f.def, cache) !== null,
        fine,
        (sv) => {
          const { allowed, labels } = optionsOf(sv.field.def, cache)!;
          const s = text(sv.value);
          if (allowed.has(s)) return;
          const path = sv.path();
          const fixValue =
            labels.get(s.toLowerCase()) ?? [...allowed].find((a) => a.toLowerCase() === s.toLowerCase() || a === s.toLowerCase().replace(/[^a-z0-9]+/g, '_'));
          emit({
            code: 'seed_value_not_in_options',
            artifact: { type: 'seed', name: sv.seed.name },
            ref: { type: 'object', name: sv.object.name, member: sv.key },
            message: `Seed ${q(sv.seed.name)} record ${sv.record} sets ${sv.field.def.type} field ${q(sv.key)} to ${q(s)}, which is not one of its option values (${listing(allowed)}); the row is rejected.${didYouMeanText(fixValue ? [fixValue] : undefined)}`,
            fix: fixValue
              ? `Use the option value ${q(fixValue)} (values, not labels).`
              : `Use one of ${listing(allowed)}, or add option ${q(s)} to field ${q(sv.key)} of ${q(sv.object.name)}.`,
            path,
            ...(fixValue ? { suggestions: [fixValue], patch: [{ op: 'replace' as const, path, value: fixValue }] } : {}),
          });
        },
      );
      return walk && { records: walk };
    };
  },
});
