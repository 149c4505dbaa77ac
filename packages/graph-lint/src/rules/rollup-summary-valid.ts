import { type Graph, type ObjectNode, pointer, RELATION_TYPES, referenceOf } from '@bvl/metadata';
import { checkField } from '../check-field.ts';
import { defineRule, type Finding } from '../define-rule.ts';
import { didYouMeanText, listing, objectChoices, q, suggest } from '../describe-names.ts';
import { filterLeaves } from '../filter-leaves.ts';
import { resolvePath } from '../resolve-path.ts';

const NUMERIC = new Set(['number', 'currency', 'percent', 'rating', 'slider', 'progress', 'summary']);
const DATES = new Set(['date', 'datetime', 'time']);
/** What each aggregate needs of the summarized field; count needs nothing. */
const NEEDS: Readonly<Record<string, { readonly types: ReadonlySet<string>; readonly what: string } | undefined>> = {
  sum: { types: NUMERIC, what: 'a number' },
  avg: { types: NUMERIC, what: 'a number' },
  average: { types: NUMERIC, what: 'a number' },
  min: { types: new Set([...NUMERIC, ...DATES]), what: 'a number or a date' },
  max: { types: new Set([...NUMERIC, ...DATES]), what: 'a number or a date' },
  count: undefined,
};

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Relation fields of `child` that point at `parent`. */
function relationsTo(child: ObjectNode, parent: string): string[] {
  return [...child.fields.values()].filter((f) => !f.invalid && RELATION_TYPES.has(f.def.type) && referenceOf(f.def) === parent).map((f) => f.name);
}

function* checkSummary(graph: Graph, parent: ObjectNode, field: string, ops: Record<string, unknown>): Generator<Finding> {
  const artifact = { type: 'object', name: parent.name };
  const at = (...rest: Array<string | number>) => pointer('fields', field, 'summaryOperations', ...rest);
  const subject = `Summary field ${q(field)} of object ${q(parent.name)}`;
  if (typeof ops.object !== 'string') return;
  const child = graph.objects.get(ops.object);
  if (!child) {
    const { clause, candidates } = objectChoices(graph, ops.object);
    const s = suggest(ops.object, candidates, at('object'));
    yield {
      code: 'dangling_object',
      artifact,
      ref: { type: 'object', name: ops.object, member: field },
      message: `${subject} rolls up object ${q(ops.object)}, which does not exist (${clause}).${didYouMeanText(s.suggestions)}`,
      fix: s.suggestions?.length
        ? `Roll up ${q(s.suggestions[0])}, or create object ${q(ops.object)}.`
        : `Create object ${q(ops.object)}, or roll up an existing child object.`,
      path: at('object'),
      ...s,
    };
    return;
  }
  if (child.invalid) return;
  // A named relationship field (the format's optional key) must be one; otherwise any will do.
  const named = typeof ops.relationshipField === 'string' ? ops.relationshipField : undefined;
  const relations = relationsTo(child, parent.name);
  if (named === undefined ? relations.length === 0 : !relations.includes(named)) {
    yield {
      code: 'rollup_not_related',
      artifact,
      ref: { type: 'object', name: child.name, ...(named !== undefined ? { member: named } : {}) },
      message:
        named === undefined
          ? `${subject} rolls up object ${q(child.name)}, which has no lookup or master_detail field to ${q(parent.name)}, so no ${q(child.name)} record belongs to a ${q(parent.name)} record and the summary is always empty.`
          : `${subject} rolls up object ${q(child.name)} through ${q(named)}, which is not a lookup or master_detail of ${q(child.name)} to ${q(parent.name)} (its relations to ${q(parent.name)}: ${listing(relations)}).`,
      fix:
        relations.length > 0
          ? `Roll up through ${q(relations[0])}.`
          : `Add a master_detail field referencing ${q(parent.name)} to object ${q(child.name)}, or roll up the object that has one.`,
      path: named === undefined ? at('object') : at('relationshipField'),
    };
  }
  const fn = typeof ops.function === 'string' ? ops.function.toLowerCase() : undefined;
  if (typeof ops.field === 'string') {
    const missing = checkField(graph, child, ops.field, { artifact, subject: () => subject, slot: 'summaryOperations', path: at('field') });
    if (missing) yield missing;
    else {
      const need = fn === undefined ? undefined : NEEDS[fn];
      const r = resolvePath(graph, child, ops.field);
      if (need && r.ok) {
        const type = r.field.def.type;
        const formula = type === 'formula';
        if (formula || !need.types.has(type)) {
          yield {
            code: 'field_type_mismatch',
            artifact,
            ref: { type: 'object', name: r.object.name, member: r.field.name },
            message: formula
              ? `${subject} takes the ${fn} of field ${q(ops.field)} of object ${q(child.name)}, a formula field: a formula is computed per record and never stored, so there is no column to aggregate.`
              : `${subject} takes the ${fn} of field ${q(ops.field)} of object ${q(child.name)}, a ${type} field; ${fn} needs ${need.what}.`,
            fix: `Summarize a ${need.what} field of ${q(child.name)}, or use count.`,
            path: at('field'),
          };
        }
      }
    }
  }
  for (const leaf of filterLeaves(ops.filter, ['fields', field, 'summaryOperations', 'filter'])) {
    const f = checkField(graph, child, leaf.field, {
      artifact,
      subject: () => subject,
      slot: 'summaryOperations filter',
      path: pointer(...leaf.at),
      patchable: false,
    });
    if (f) yield f;
  }
}

/**
 * Roll-up summaries (`type: 'summary'`, `summaryOperations: {object, field, function, filter?}`):
 * the child object exists, has a lookup/master_detail back to the summary's object, the summarized
 * field (and every filter field) exists on it, and its type fits the aggregate — sum/avg need
 * numbers, min/max numbers or dates, count nothing; a formula is never stored, so never aggregated.
 */
export default defineRule({
  meta: {
    name: 'rollup-summary-valid',
    codes: ['dangling_object', 'rollup_not_related', 'unknown_field', 'field_type_mismatch'],
    docs: 'Roll-up summary fields name a related child object, a field it has, and an aggregate that fits its type.',
  },
  run(graph, emit) {
    for (const parent of graph.objects.values()) {
      if (parent.invalid || parent.platform) continue;
      for (const f of parent.fields.values()) {
        if (f.invalid || f.def.type !== 'summary' || !isRecord(f.def.summaryOperations)) continue;
        for (const found of checkSummary(graph, parent, f.name, f.def.summaryOperations)) emit(found);
      }
    }
  },
});
