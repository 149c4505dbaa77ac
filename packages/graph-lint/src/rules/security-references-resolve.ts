import { type Graph, isPlatformObjectName, type NamedNode, type ObjectNode, pointer } from '@bvl/metadata';
import { checkExpression, expressionAt, type ValueKind } from '../check-expression.ts';
import { checkField } from '../check-field.ts';
import { defineRule, type Finding } from '../define-rule.ts';
import { didYouMeanText, objectChoices, q, suggest } from '../describe-names.ts';

const isRecord = (v: unknown): v is Readonly<Record<string, unknown>> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The object, when the name resolves (a platform object not in the graph resolves, its fields unjudged); or a dangling_object finding. */
function objectOrFinding(
  graph: Graph,
  name: string,
  artifact: { type: string; name: string },
  who: string,
  path: string,
  patchable = true,
): { object?: ObjectNode; finding?: Finding } {
  const object = graph.objects.get(name);
  if (object) return { object };
  if (isPlatformObjectName(name)) return {};
  const { clause, candidates } = objectChoices(graph, name);
  const s = suggest(name, candidates, patchable ? path : undefined);
  return {
    finding: {
      code: 'dangling_object',
      artifact,
      ref: { type: 'object', name },
      message: `${who} names object ${q(name)}, which does not exist (${clause}); ObjectStack's defineStack refuses the stack.${didYouMeanText(s.suggestions)}`,
      fix: s.suggestions?.length ? `Use object ${q(s.suggestions[0])}, or create object ${q(name)}.` : `Create object ${q(name)}, or remove the grant.`,
      path,
      ...s,
    },
  };
}

function* checkPermission(graph: Graph, p: NamedNode, def: Readonly<Record<string, unknown>>): Generator<Finding> {
  const artifact = { type: 'permission', name: p.name };
  const who = `Permission set ${q(p.name)}`;
  // The object of an object grant is the record's key: a patch would rename the key, so none is offered.
  if (isRecord(def.objects)) {
    for (const name of Object.keys(def.objects)) {
      const r = objectOrFinding(graph, name, artifact, `${who} grants access to an object: it`, pointer('objects', name), false);
      if (r.finding) yield r.finding;
    }
  }
  if (isRecord(def.fields)) {
    for (const key of Object.keys(def.fields)) {
      const dot = key.indexOf('.');
      if (dot <= 0) continue;
      const [objectName, field] = [key.slice(0, dot), key.slice(dot + 1)];
      const path = pointer('fields', key);
      const r = objectOrFinding(graph, objectName, artifact, `${who} sets field permissions on ${q(key)}: it`, path, false);
      if (r.finding) yield r.finding;
      if (!r.object) continue;
      const f = checkField(graph, r.object, field, { artifact, subject: () => who, slot: 'field permissions', path, patchable: false });
      if (f) yield f;
    }
  }
  if (Array.isArray(def.rowLevelSecurity)) {
    for (const [i, rule] of def.rowLevelSecurity.entries()) {
      if (!isRecord(rule) || typeof rule.object !== 'string') continue;
      const name = typeof rule.name === 'string' ? rule.name : `#${i}`;
      const r = objectOrFinding(
        graph,
        rule.object,
        artifact,
        `Row-level security rule ${q(name)} of permission set ${q(p.name)}`,
        pointer('rowLevelSecurity', i, 'object'),
      );
      if (r.finding) yield r.finding;
    }
  }
}

function* checkSharingRule(
  graph: Graph,
  rule: NamedNode,
  def: Readonly<Record<string, unknown>>,
  kindOf: (o: ObjectNode, f: string) => ValueKind,
): Generator<Finding> {
  if (typeof def.object !== 'string') return;
  const artifact = { type: 'sharing_rule', name: rule.name };
  const who = `Sharing rule ${q(rule.name)}`;
  const r = objectOrFinding(graph, def.object, artifact, `${who} shares records of an object: it`, '/object');
  if (r.finding) yield r.finding;
  if (!r.object || r.object.invalid || def.condition === undefined) return;
  const at = expressionAt(def.condition, '/condition');
  if (at)
    yield* checkExpression(
      graph,
      at,
      { artifact, subject: `The condition of sharing rule ${q(rule.name)} on object ${q(r.object.name)}`, object: r.object },
      kindOf,
    ).findings;
}

/**
 * Permission sets (and profiles) and sharing rules against the objects and fields they name:
 * object grants, `fields` keys (`object.field`), row-level security objects, a sharing rule's object
 * and its CEL condition (parsed, its fields resolved). ObjectStack's defineStack throws on an unknown
 * object; bvl names each one. Platform objects resolve.
 */
export default defineRule({
  meta: {
    name: 'security-references-resolve',
    codes: ['dangling_object', 'unknown_field', 'formula_parse_error', 'field_type_mismatch'],
    docs: 'Permission sets, profiles and sharing rules name objects and fields that exist; sharing conditions parse.',
  },
  run(graph, emit) {
    for (const p of graph.permissions.values()) if (!p.invalid && p.def) for (const found of checkPermission(graph, p, p.def)) emit(found);
    const kindOf = (): ValueKind => 'unknown';
    for (const r of graph.sharingRules.values()) if (!r.invalid && r.def) for (const found of checkSharingRule(graph, r, r.def, kindOf)) emit(found);
  },
});
