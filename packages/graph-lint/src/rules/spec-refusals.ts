import { allFieldNames, type Graph, resolveField, type SpecRefusal, specRefusals } from '@bvl/metadata';
import { defineRule, type Finding } from '../define-rule.ts';
import { didYouMeanText, listing, q, suggest } from '../describe-names.ts';
import { GROUPABLE_TYPES } from './kanban-group-field-valid.ts';

/**
 * What the target spec refuses by name — a view or widget type outside its closed enum, a key the
 * release retired, a view block without the key it requires — is `invalid_artifact`, an error,
 * whatever a renderer would draw in its place: ObjectStack will not store the artifact. Each
 * message names the spec rule. L2 leaves these paths to this rule (one defect, one issue).
 */
export default defineRule({
  meta: {
    name: 'spec-refusals',
    codes: ['invalid_artifact'],
    docs: 'Views and widgets use only types, keys and blocks the target ObjectStack spec accepts (closed enums, retired keys, required block keys).',
  },
  run(graph, emit) {
    for (const r of specRefusals(graph)) emit(finding(graph, r));
  },
});

function finding(graph: Graph, r: SpecRefusal): Finding {
  const spec = `ObjectStack spec ${graph.spec.package.split('@').pop()} (${r.rule})`;
  const who = r.member
    ? `Widget ${q(r.member)} of dashboard ${q(r.artifact.name)}`
    : `${r.artifact.type === 'view' ? 'View' : 'Dashboard'} ${q(r.artifact.name)}`;
  const base = { code: 'invalid_artifact' as const, artifact: r.artifact, path: r.path, ...(r.member ? { ref: { ...r.artifact, member: r.member } } : {}) };
  switch (r.kind) {
    case 'not-in-enum': {
      const s = suggest(r.value, r.allowed, r.path);
      // "list" is a viewKind, not a list view type; it means the default grid.
      const patch =
        r.value === 'list' && r.allowed.includes('grid')
          ? { patch: [{ op: 'replace' as const, path: r.path, value: 'grid' }], fixSafety: 'safe' as const }
          : {};
      return {
        ...base,
        message: `${who} has type ${q(r.value)}, which ${spec} refuses: ${r.what}s are ${listing(r.allowed)}. ObjectStack will not store it, whatever a renderer would draw in its place.${didYouMeanText(s.suggestions)}`,
        fix: `Set the type to one of the ${r.what}s (${listing(r.allowed)}).`,
        ...s,
        ...patch,
      };
    }
    case 'retired':
      return {
        ...base,
        message: `${who} has key ${q(r.key)}, which ${spec} refuses by name: it was removed in ${r.retired.since}. ObjectStack will not store it.`,
        fix: `Remove ${q(r.key)}: ${r.retired.instead}.`,
        ...(r.retired.instead.startsWith('delete') ? { patch: [{ op: 'remove' as const, path: r.path }] } : {}),
      };
    case 'missing': {
      const view = graph.views.get(r.artifact.name);
      const object = view?.object ? graph.objects.get(view.object) : undefined;
      const candidates =
        r.block === 'kanban' && object && !object.invalid
          ? allFieldNames(object).filter((n) => GROUPABLE_TYPES.has(resolveField(object, n)?.def.type ?? ''))
          : [];
      const only = candidates.length === 1 ? candidates[0] : undefined;
      return {
        ...base,
        message: `The ${q(r.block)} block of ${who.replace(/^View/, 'view')} has no ${r.key}, which ${spec} requires. ObjectStack will not store the view, whatever a renderer would pick in its place.`,
        fix: `Set ${r.block}.${r.key}${candidates.length ? ` to one of: ${listing(candidates)}` : object ? ` (${q(object.name)} has no groupable field yet)` : ''}.`,
        ...(only ? { patch: [{ op: 'add', path: r.path, value: only }] } : {}),
      };
    }
  }
}
