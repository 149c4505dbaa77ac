import { optionValues, pointer } from '@bvl/metadata';
import { defineRule } from '../define-rule.ts';
import { listing, q } from '../describe-names.ts';
import { isCel } from '../seed-field-values.ts';

const CHOICE_TYPES = new Set(['select', 'multiselect', 'radio', 'checkboxes']);

/**
 * A choice field's options are distinct, and its `defaultValue` is one of them. Two options of one
 * value store the same thing under two labels (the second is never told apart); a default outside
 * the options is a value the field refuses — ObjectStack rejects the field at parse (#7127: a
 * literal default must satisfy the field's own value contract).
 */
export default defineRule({
  meta: {
    name: 'field-options-valid',
    codes: ['duplicate_option_value', 'invalid_artifact'],
    docs: "A choice field's option values are distinct and its defaultValue is among them.",
  },
  run(graph, emit) {
    for (const obj of graph.objects.values()) {
      if (obj.invalid || obj.platform) continue;
      for (const f of obj.fields.values()) {
        if (f.invalid || !CHOICE_TYPES.has(f.def.type)) continue;
        const values = optionValues(f.def);
        if (!values || values.length === 0) continue;
        const artifact = { type: 'object', name: obj.name };
        const ref = { type: 'object', name: obj.name, member: f.name };
        const first = new Map<string, number>();
        for (const [i, v] of values.entries()) {
          const at = first.get(v);
          if (at === undefined) {
            first.set(v, i);
            continue;
          }
          emit({
            code: 'duplicate_option_value',
            artifact,
            ref,
            message: `Field ${q(f.name)} of object ${q(obj.name)} declares option value ${q(v)} twice (options ${at} and ${i}): both store ${q(v)}, so a record never says which was meant and the second label is unreachable.`,
            fix: `Give option ${i} of field ${q(f.name)} its own value, or remove it.`,
            path: pointer('fields', f.name, 'options', i),
            patch: [{ op: 'remove', path: pointer('fields', f.name, 'options', i) }],
            fixSafety: 'unsafe',
          });
        }
        const dv = f.def.defaultValue;
        if (dv === undefined || dv === null || isCel(dv)) continue;
        const multi = f.def.type === 'multiselect' || f.def.type === 'checkboxes' || f.def.multiple === true;
        const given = multi && Array.isArray(dv) ? dv : [dv];
        const outside = given.filter((v) => !first.has(typeof v === 'object' ? (JSON.stringify(v) ?? '') : String(v)));
        if (outside.length === 0 && (multi || !Array.isArray(dv))) continue;
        emit({
          code: 'invalid_artifact',
          artifact,
          ref,
          message: `Field ${q(f.name)} of object ${q(obj.name)} defaults to ${outside.length ? outside.map((v) => q(v)).join(', ') : q(dv)}, which is not among its option values (${listing(first.keys())}); ObjectStack refuses the field (#7127), and a new record would store a value the field rejects.`,
          fix: `Set defaultValue of field ${q(f.name)} to one of: ${listing(first.keys())}, or mark the default option with "default": true.`,
          path: pointer('fields', f.name, 'defaultValue'),
        });
      }
    }
  },
});
