import type { FixSafety, JsonPatchOp } from '@bvl/build-issue';
import type { MeasureDef } from '@bvl/metadata';
import { mayBeHidden, pointer } from '@bvl/metadata';
import { defineRule } from '../define-rule.ts';
import { didYouMeanText, listing, q, suggest } from '../describe-names.ts';

/**
 * Agents most often write the base field's name where a measure name belongs (`amount` for
 * `total_amount`). Measures aggregating that very field rank first; one unfiltered such measure
 * is clearly right and earns a safe patch; several make the best one an unsafe patch. Otherwise
 * fall back to name similarity.
 */
export function measureSuggestions(
  value: string,
  defs: readonly MeasureDef[],
  names: string[],
  path: string,
): { suggestions?: string[]; patch?: JsonPatchOp[]; fixSafety?: FixSafety } {
  const onField = defs.filter((m) => m.field === value && !m.derived);
  const similar = suggest(value, names, path);
  if (onField.length === 0) return similar;
  const unfiltered = onField.filter((m) => m.filter === undefined);
  const ranked = [...new Set([...unfiltered, ...onField].map((m) => m.name).concat(similar.suggestions ?? []))].slice(0, 3);
  return { suggestions: ranked, patch: [{ op: 'replace', path, value: ranked[0]! }], fixSafety: unfiltered.length === 1 ? 'safe' : 'unsafe' };
}

/** ADR-0038 incident #2: a widget `values[]` entry that names no measure of its dataset. */
export default defineRule({
  meta: { name: 'widget-measure-exists', codes: ['unknown_measure'], docs: "Every widget values[] entry is a measure of the widget's dataset." },
  run(graph, emit) {
    for (const d of graph.dashboards.values()) {
      if (d.invalid) continue;
      for (const w of d.widgets) {
        // Hidden by ObjectStack when its requiresObject is not registered: not judged.
        if (mayBeHidden(graph.objects, w.def.requiresObject)) continue;
        const ds = w.def.dataset !== undefined ? graph.datasets.get(w.def.dataset) : undefined;
        if (!ds || ds.invalid) continue;
        const values = w.def.values;
        if (values === undefined) continue;
        // The measure names are listed only in a finding: a clean widget builds nothing.
        let measures: string[] | undefined;
        for (let i = 0; i < values.length; i++) {
          const value = values[i]!;
          if (ds.measures.has(value)) continue;
          measures ??= [...ds.measures.keys()];
          const path = pointer('widgets', w.index, 'values', i);
          const s = measureSuggestions(value, ds.def.measures, measures, path);
          emit({
            code: 'unknown_measure',
            artifact: { type: 'dashboard', name: d.name },
            ref: { type: 'dashboard', name: d.name, member: w.id },
            message: `Widget ${q(w.id)} of dashboard ${q(d.name)} asks for measure ${q(value)}, which dataset ${q(ds.name)} does not declare (it has: ${listing(measures)}).${didYouMeanText(s.suggestions)}`,
            fix: s.suggestions?.length
              ? `Use measure ${q(s.suggestions[0])}, or add measure ${q(value)} to dataset ${q(ds.name)}.`
              : `Add measure ${q(value)} to dataset ${q(ds.name)}, or use one of its measures.`,
            path,
            ...s,
          });
        }
      }
    }
  },
});
