import { type Graph, type ObjectNode, pointer } from '@bvl/metadata';
import { checkExpression, declaredResultKind, expressionAt, fieldPointer, type ValueKind } from '../check-expression.ts';
import { checkField } from '../check-field.ts';
import { defineRule, type Finding } from '../define-rule.ts';
import { q } from '../describe-names.ts';

/** Field-level CEL conditions (ObjectStack's visibleWhen/readonlyWhen/requiredWhen). */
const FIELD_CONDITIONS = ['visibleWhen', 'readonlyWhen', 'requiredWhen'] as const;

/** A formula field's expression: `expression` (the format), else the older `formula` key. */
function formulaSource(def: Record<string, unknown>, field: string) {
  if (def.expression !== undefined) return expressionAt(def.expression, fieldPointer(field, 'expression'));
  if (def.formula !== undefined) return expressionAt(def.formula, fieldPointer(field, 'formula'));
  return undefined;
}

/** Each formula field's inferred result kind, computed once (a cycle reads as unknown). */
function formulaKinds(graph: Graph): (o: ObjectNode, f: string) => ValueKind {
  const memo = new Map<string, ValueKind>();
  const kindOf = (o: ObjectNode, f: string): ValueKind => {
    const key = `${o.name}\u0000${f}`;
    const hit = memo.get(key);
    if (hit !== undefined) return hit;
    memo.set(key, 'unknown');
    const field = o.fields.get(f);
    const at = field && !field.invalid ? formulaSource(field.def as Record<string, unknown>, f) : undefined;
    const kind = at ? checkExpression(graph, at, { artifact: { type: 'object', name: o.name }, subject: '', object: o, self: f }, kindOf).kind : 'unknown';
    memo.set(key, kind);
    return kind;
  };
  return kindOf;
}

/**
 * Formula fields, field conditions (visibleWhen/readonlyWhen/requiredWhen), CEL default values
 * and validation rules parse (`formula_parse_error`, with line and column), every field they read resolves — lookup
 * paths such as `record.account.name` followed (`unknown_field`) — and their arithmetic and
 * declared result types agree with the fields they read (`field_type_mismatch`). A validation
 * rule's own `field` (state machine, format) must exist too.
 */
export default defineRule({
  meta: {
    name: 'formula-expressions-resolve',
    codes: ['formula_parse_error', 'unknown_field', 'field_type_mismatch'],
    docs: 'Formula fields, field conditions and validation rules parse, read fields that exist, and do arithmetic on numbers.',
  },
  run(graph, emit) {
    const kindOf = formulaKinds(graph);
    for (const object of graph.objects.values()) {
      if (object.invalid || object.platform) continue;
      const artifact = { type: 'object', name: object.name };
      for (const field of object.fields.values()) {
        if (field.invalid) continue;
        const def = field.def as Record<string, unknown>;
        if (def.type === 'formula') {
          const at = formulaSource(def, field.name);
          if (at) {
            const subject = `Formula field ${q(field.name)} of object ${q(object.name)}`;
            const r = checkExpression(graph, at, { artifact, subject, object, self: field.name }, kindOf);
            for (const found of r.findings) emit(found);
            const declared = declaredResultKind(field.def);
            if (declared !== undefined && r.kind !== 'unknown' && r.kind !== declared) {
              emit({
                code: 'field_type_mismatch',
                artifact,
                ref: { type: 'object', name: object.name, member: field.name },
                message: `${subject} declares a ${declared} result, but its expression yields ${r.kind === 'bool' ? 'a yes/no value' : r.kind}: every view, filter and chart that reads it as ${declared} gets the wrong kind of value.`,
                fix: `Make the expression yield ${declared}, or declare the result type it yields.`,
                path: at.path,
              } satisfies Finding);
            }
          }
        }
        // A CEL default (`{dialect: 'cel', source: 'today()'}`; a plain string default is a literal value).
        const dflt = def.defaultValue;
        if (typeof dflt === 'object' && dflt !== null && (dflt as { dialect?: unknown }).dialect === 'cel') {
          const at = expressionAt(dflt, fieldPointer(field.name, 'defaultValue'));
          const subject = `The default value of field ${q(field.name)} of object ${q(object.name)}`;
          if (at) for (const found of checkExpression(graph, at, { artifact, subject, object }, kindOf).findings) emit(found);
        }
        for (const key of FIELD_CONDITIONS) {
          const at = def[key] === undefined ? undefined : expressionAt(def[key], fieldPointer(field.name, key));
          if (!at) continue;
          const subject = `The ${key} condition of field ${q(field.name)} of object ${q(object.name)}`;
          for (const found of checkExpression(graph, at, { artifact, subject, object }, kindOf).findings) emit(found);
        }
      }
      const validations = (object.def as Record<string, unknown>).validations;
      if (!Array.isArray(validations)) continue;
      for (const [i, rule] of validations.entries()) {
        if (typeof rule !== 'object' || rule === null) continue;
        const v = rule as Record<string, unknown>;
        const name = typeof v.name === 'string' ? v.name : `#${i}`;
        const subject = `Validation rule ${q(name)} of object ${q(object.name)}`;
        if (v.condition !== undefined) {
          const at = expressionAt(v.condition, pointer('validations', i, 'condition'));
          if (at) for (const found of checkExpression(graph, at, { artifact, subject, object }, kindOf).findings) emit(found);
        }
        if (typeof v.field === 'string') {
          const f = checkField(graph, object, v.field, { artifact, subject: () => subject, slot: 'field', path: pointer('validations', i, 'field') });
          if (f) emit(f);
        }
      }
    }
  },
});
