import { pointer } from '@bvl/metadata';
import { defineRule } from '../define-rule.ts';
import { q } from '../describe-names.ts';

/** The stored form of each temporal field type (ObjectStack's field value contract), and an example. */
const STORED: Readonly<Record<string, { test: (s: string) => boolean; form: string; example: string }>> = {
  date: { test: (s) => /^\d{4}-\d{2}-\d{2}$/.test(s), form: 'a calendar day YYYY-MM-DD', example: '2026-01-31' },
  datetime: {
    test: (s) => !Number.isNaN(Date.parse(s)) && (/[Zz]$/.test(s) || /[+-]\d{2}:?\d{2}$/.test(s.slice(10))),
    form: 'an ISO-8601 instant with a zone',
    example: '2026-01-31T09:00:00Z',
  },
  time: { test: (s) => /^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d+)?)?(Z|[+-]([01]\d|2[0-3]):?[0-5]\d)?$/.test(s), form: 'a time of day HH:MM', example: '09:00' },
};

/**
 * A date, datetime or time field's literal `defaultValue` is that type's stored form, the token
 * `NOW()`, or a CEL expression (`{ dialect: "cel", source: "today()" }`). ObjectStack's spec refuses
 * anything else at parse time ("$today", "today", "2026/01/31"): the engine would store it verbatim.
 */
export default defineRule({
  meta: {
    name: 'field-default-contract',
    codes: ['invalid_artifact'],
    docs: 'A date/datetime/time default is a stored value of its type, NOW(), or a CEL expression, as the spec requires.',
  },
  run(graph, emit) {
    for (const obj of graph.objects.values()) {
      if (obj.invalid || obj.platform) continue;
      for (const f of obj.fields.values()) {
        const stored = f.invalid ? undefined : STORED[f.def.type];
        const dv = f.def.defaultValue;
        if (!stored || typeof dv !== 'string' || dv === 'NOW()' || stored.test(dv)) continue;
        emit({
          code: 'invalid_artifact',
          artifact: { type: 'object', name: obj.name },
          ref: { type: 'object', name: obj.name, member: f.name },
          message: `Field ${q(f.name)} of object ${q(obj.name)} is a ${f.def.type} whose defaultValue ${q(dv)} is not ${stored.form}; ObjectStack's spec refuses the field (the engine would store the text verbatim).`,
          fix: `Set defaultValue of field ${q(f.name)} to ${stored.form} (e.g. "${stored.example}"), to "NOW()" for the current ${f.def.type === 'time' ? 'time' : 'moment'}, or to an expression: {"dialect": "cel", "source": "today()"}.`,
          path: pointer('fields', f.name, 'defaultValue'),
        });
      }
    }
  },
});
