import { type FieldNode, pointer, resolveField } from '@bvl/metadata';
import { defineRule, type Finding } from '../define-rule.ts';
import { q } from '../describe-names.ts';
import { isCel } from '../seed-field-values.ts';

const NUMBER_TYPES = new Set(['number', 'currency', 'percent', 'rating', 'slider', 'progress']);
const BOOLEAN_TYPES = new Set(['boolean', 'toggle']);
const TEXT_TYPES = new Set(['text', 'textarea', 'email', 'url', 'phone', 'password', 'secret', 'markdown', 'html', 'richtext', 'code', 'color']);
/** Computed by the platform: never seeded, so never missing. */
const COMPUTED = new Set(['formula', 'summary', 'autonumber']);
const NUMERIC_TEXT = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;
const TIME = /^\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?$/;

/** What is wrong with a value for a field of this type ("a string"), or undefined when it fits (or is not judged here). */
function wrongType(field: FieldNode, v: unknown): string | undefined {
  const t = field.def.type;
  const kind = Array.isArray(v) ? 'a list' : v === null ? 'null' : typeof v === 'object' ? 'an object' : `${typeof v} ${JSON.stringify(v)}`;
  if (NUMBER_TYPES.has(t)) return (typeof v === 'number' && Number.isFinite(v)) || (typeof v === 'string' && NUMERIC_TEXT.test(v.trim())) ? undefined : kind;
  if (BOOLEAN_TYPES.has(t)) return typeof v === 'boolean' || v === 'true' || v === 'false' || v === 0 || v === 1 ? undefined : kind;
  if (t === 'date' || t === 'datetime')
    return typeof v === 'string' && (DAY.test(v) || INSTANT.test(v)) && !Number.isNaN(Date.parse(v.length === 10 ? `${v}T00:00:00Z` : v)) ? undefined : kind;
  if (t === 'time') return typeof v === 'string' && TIME.test(v) ? undefined : kind;
  if (TEXT_TYPES.has(t) && !field.def.multiple) return typeof v === 'object' && v !== null ? kind : undefined;
  return undefined;
}

const blank = (v: unknown): boolean => v === undefined || v === null || v === '';

/**
 * Seed records keep their fields' value contract, which ObjectStack enforces on every write (and
 * so does the platform bvl publishes to): a value of the field's type, every `required` field set,
 * text within `maxLength`, a `unique` value once. A record that breaks it is rejected, and its row
 * never lands. CEL values are computed at publish and not judged; mode `update` sets only what it names.
 */
export default defineRule({
  meta: {
    name: 'seed-value-contract',
    codes: ['seed_value_invalid'],
    docs: "Seed records fit their fields' value contract: type, required, maxLength, unique.",
  },
  *check(graph) {
    for (const seed of graph.seeds.values()) {
      if (seed.invalid) continue;
      const obj = graph.objects.get(seed.object);
      if (!obj || obj.invalid || obj.platform) continue;
      const artifact = { type: 'seed', name: seed.name };
      const who = (i: number) => `Seed ${q(seed.name)} record ${i}`;
      const problem = (i: number, field: FieldNode, path: string, what: string, fix: string): Finding => ({
        code: 'seed_value_invalid',
        artifact,
        ref: { type: 'object', name: obj.name, member: field.name },
        message: `${who(i)} ${what}; the platform rejects the record, so its row never lands.`,
        fix,
        path,
      });
      const required = [...obj.fields.values()].filter(
        (f) => !f.invalid && f.def.required === true && !COMPUTED.has(f.def.type) && f.def.defaultValue === undefined,
      );
      const singleKey = seed.externalId.length === 1 ? seed.externalId[0] : undefined;
      const uniques = [...obj.fields.values()].filter(
        (f) => !f.invalid && f.def.unique !== undefined && f.def.unique !== false && !(f.name === singleKey && seed.mode !== 'insert'),
      );
      const seen = new Map<string, Map<string, number>>();
      for (const [i, rec] of seed.def.records.entries()) {
        for (const [key, v] of Object.entries(rec)) {
          if (v === null || v === undefined || isCel(v)) continue;
          const field = resolveField(obj, key);
          if (!field || field.invalid || field.system) continue;
          const bad = wrongType(field, v);
          if (bad)
            yield problem(
              i,
              field,
              pointer('records', i, key),
              `sets ${field.def.type} field ${q(key)} to ${bad}, which is not a ${field.def.type} value`,
              `Give ${q(key)} a ${field.def.type} value${field.def.type === 'date' ? ' ("YYYY-MM-DD", or a CEL value like daysAgo(3))' : ''}.`,
            );
          const max = field.def.maxLength;
          if (typeof v === 'string' && typeof max === 'number' && [...v].length > max)
            yield problem(
              i,
              field,
              pointer('records', i, key),
              `sets ${field.def.type} field ${q(key)} to ${[...v].length} characters, over its maxLength of ${max}`,
              `Shorten the value of ${q(key)} to ${max} characters, or raise its maxLength.`,
            );
        }
        if (seed.mode !== 'update')
          for (const f of required)
            if (blank(rec[f.name]))
              yield problem(
                i,
                f,
                pointer('records', i),
                `leaves required ${f.def.type} field ${q(f.name)} ${f.name in rec ? 'empty' : 'unset'}`,
                `Set ${q(f.name)} on every record of seed ${q(seed.name)}, or give the field a defaultValue.`,
              );
        for (const f of uniques) {
          const v = rec[f.name];
          if (blank(v) || isCel(v)) continue;
          const text = typeof v === 'object' ? (JSON.stringify(v) ?? '') : String(v);
          let values = seen.get(f.name);
          if (!values) seen.set(f.name, (values = new Map()));
          const first = values.get(text);
          if (first === undefined) values.set(text, i);
          else
            yield problem(
              i,
              f,
              pointer('records', i, f.name),
              `repeats ${q(v)} in unique ${f.def.type} field ${q(f.name)} (record ${first} has it)`,
              `Give record ${i} its own ${q(f.name)}, or drop one of the two records.`,
            );
        }
      }
    }
  },
});
