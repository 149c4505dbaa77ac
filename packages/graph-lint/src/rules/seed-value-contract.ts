import { type FieldNode, type ObjectNode, pointer, RELATION_TYPES, resolveField, type SeedNode } from '@bvl/metadata';
import { defineRule, type Finding, type SeedRecord } from '../define-rule.ts';
import { q } from '../describe-names.ts';
import { isCel } from '../seed-field-values.ts';
import { keyHash } from '../seed-key-hash.ts';

// What ObjectStack's write path accepts, by field type (packages/objectql/src/validation/record-validator.ts,
// which every seed record passes through engine.insert/update). It is more lenient than the stored value
// contract (spec data/field-value.zod.ts): a numeric string is a number, "1"/"true" a boolean, any string
// Date.parse reads a date; a lone scalar for a multi-value field is wrapped into a list first.
const NUMBER_TYPES = new Set(['number', 'currency', 'percent', 'rating', 'slider']);
const BOOLEAN_TYPES = new Set(['boolean', 'toggle']);
const BOOLEAN_WORDS = new Set<unknown>([true, false, 0, 1, '0', '1', 'true', 'false']);
const MULTI_VALUE_TYPES = new Set(['multiselect', 'checkboxes', 'tags']);
const TEXT_TYPES = new Set(['text', 'textarea', 'email', 'url', 'phone', 'password', 'markdown', 'html', 'richtext', 'code']);
/** Types whose value is one scalar: a list or an object there is refused (or lands as "[object Object]"). */
const SCALAR_TYPES = new Set([...NUMBER_TYPES, ...BOOLEAN_TYPES, ...TEXT_TYPES, 'date', 'datetime', 'time']);
/** Types that hold one chosen value unless `multiple`: a list there writes nothing usable (ObjectStack's lookup resolves one key; a select stores one option). */
const SINGLE_CHOICE_TYPES = new Set(['select', 'radio', ...RELATION_TYPES]);
/** Computed by the platform: never seeded, so never missing. */
const COMPUTED = new Set(['formula', 'summary', 'autonumber']);
/** CEL functions ObjectStack 17.4.0's seed loader does not have (it drops the record), and what it has instead. */
const CEL_NOT_IN_OBJECTSTACK: Readonly<Record<string, string>> = {
  hoursAgo: 'daysAgo(n) (whole days before today, UTC midnight) or now()',
  hoursFromNow: 'daysFromNow(n) (whole days after today, UTC midnight) or now()',
};
const CEL_CALL = /\b([A-Za-z_]\w*)\s*\(/g;
/** The first function a CEL envelope calls that ObjectStack's CEL lacks. */
function celNotInObjectStack(v: unknown): string | undefined {
  const source = (v as { dialect?: unknown; source?: unknown }).source;
  if ((v as { dialect?: unknown }).dialect !== 'cel' || typeof source !== 'string') return undefined;
  for (const m of source.matchAll(CEL_CALL)) if (Object.hasOwn(CEL_NOT_IN_OBJECTSTACK, m[1]!)) return m[1];
  return undefined;
}
const EMAIL = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;
const URL_REF = /^(?:[a-z][a-z0-9+.-]*:\/\/\S+|\/\S*|data:\S+|blob:\S+)$/i;
const PHONE = /^[+()\-\s\d.]{5,}$/;
const CLOCK = /^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d+)?)?(Z|[+-]([01]\d|2[0-3]):?[0-5]\d)?$/;
const TEXT_FORMATS: Record<string, [RegExp, string]> = {
  email: [EMAIL, 'an email address'],
  url: [URL_REF, 'a URL (scheme://…, /path, data: or blob:)'],
  phone: [PHONE, 'a phone number (digits, spaces, + ( ) - ., five or more)'],
};

const show = (v: unknown): string => (Array.isArray(v) ? 'a list' : typeof v === 'object' && v !== null ? 'an object' : `${typeof v} ${JSON.stringify(v)}`);

/** What the write path expects of a scalar value, in words, or undefined when `v` passes (or the type is not judged here). */
function misfit(type: string, v: unknown): string | undefined {
  if (NUMBER_TYPES.has(type)) return Number.isFinite(typeof v === 'number' ? v : Number(v)) ? undefined : 'a number';
  if (BOOLEAN_TYPES.has(type)) return BOOLEAN_WORDS.has(v) ? undefined : 'true or false (or 1/0, "true"/"false")';
  if (type === 'date' || type === 'datetime')
    return typeof v === 'string' && !Number.isNaN(Date.parse(v)) ? undefined : `an ISO ${type === 'date' ? 'date ("YYYY-MM-DD")' : 'datetime'}`;
  if (type === 'time')
    return typeof v === 'string' && (CLOCK.test(v.trim()) || (/\d{4}-\d{2}-\d{2}/.test(v) && !Number.isNaN(Date.parse(v))))
      ? undefined
      : 'a time of day "HH:MM[:SS]"';
  const format = TEXT_FORMATS[type];
  if (format) return format[0].test(String(v)) ? undefined : format[1];
  return undefined;
}

/** What is wrong with a seeded value for this field, or undefined when the write path takes it. */
function wrongType(field: FieldNode, v: unknown): string | undefined {
  const t = field.def.type;
  if (field.def.multiple === true || MULTI_VALUE_TYPES.has(t)) {
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) return `${show(v)}, not a list`;
    return undefined;
  }
  if (Array.isArray(v) && SINGLE_CHOICE_TYPES.has(t)) return `${show(v)}, not one ${t} value`;
  if (typeof v === 'object' && v !== null)
    return SCALAR_TYPES.has(t) && !(TEXT_TYPES.has(t) && Array.isArray(v)) ? `${show(v)}, not one ${t} value` : undefined;
  const expected = misfit(t, v);
  return expected ? `${show(v)}, not ${expected}` : undefined;
}

/** A value of the right type that breaks the field's declared bounds: [what, fix], or undefined. UTF-16 length, as ObjectStack counts. */
function outOfBounds(field: FieldNode, v: unknown): [string, string] | undefined {
  const { type, maxLength, minLength, min, max } = field.def;
  if (TEXT_TYPES.has(type) && !Array.isArray(v)) {
    const length = String(v).length;
    if (typeof maxLength === 'number' && length > maxLength)
      return [
        `${length} characters, over its maxLength of ${maxLength}`,
        `Shorten the value of ${q(field.name)} to ${maxLength} characters, or raise its maxLength.`,
      ];
    if (typeof minLength === 'number' && length < minLength)
      return [
        `${length} characters, under its minLength of ${minLength}`,
        `Lengthen the value of ${q(field.name)} to ${minLength} characters, or lower its minLength.`,
      ];
  }
  if (NUMBER_TYPES.has(type)) {
    const n = Number(v);
    if (typeof min === 'number' && n < min) return [`${n}, under its min of ${min}`, `Give ${q(field.name)} a value of at least ${min}, or lower its min.`];
    if (typeof max === 'number' && n > max) return [`${n}, over its max of ${max}`, `Give ${q(field.name)} a value of at most ${max}, or raise its max.`];
  }
  return undefined;
}

const blank = (v: unknown): boolean => v === undefined || v === null || v === '';

/** A unique field's value as compared with the others' (its text), or undefined when it is not compared (blank, CEL). */
const uniqueText = (v: unknown): string | undefined => (blank(v) || isCel(v) ? undefined : typeof v === 'object' ? (JSON.stringify(v) ?? '') : String(v));

/** The unique fields a seed's records are judged by: the object's, less a single natural key the seed writes by (not in insert mode). */
function uniquesOf(seed: SeedNode, unique: readonly FieldNode[]): readonly FieldNode[] {
  const singleKey = seed.externalId.length === 1 ? seed.externalId[0] : undefined;
  return unique.length === 0 ? unique : unique.filter((f) => !(f.name === singleKey && seed.mode !== 'insert'));
}

/** The object's valid fields that may be unique (declared so). */
const uniqueFields = (obj: ObjectNode): FieldNode[] =>
  [...obj.fields.values()].filter((f) => !f.invalid && f.def.unique !== undefined && f.def.unique !== false);

/**
 * Seed records keep their fields' value contract, which ObjectStack enforces on every write (and
 * so does the platform bvl publishes to): a value the write path takes for the field's type, every
 * `required` field set, text within `maxLength`/`minLength`, numbers within `min`/`max`, a `unique` value once. A record that breaks it is rejected, and its row
 * never lands. CEL values are computed at publish and not judged, except a call ObjectStack's CEL lacks
 * (`hoursAgo`, `hoursFromNow`: its loader drops the record); mode `update` sets only what it names.
 */
export default defineRule({
  meta: {
    name: 'seed-value-contract',
    codes: ['seed_value_invalid'],
    docs: "Seed records fit their fields' value contract: type, required, length, range, unique.",
  },
  // A stored seed's unique values are hashed as it is read (see SeedPassContext.repeated): its pass keeps only those that may repeat.
  *seedRepeats(graph) {
    for (const seed of graph.seeds.values()) {
      if (seed.stored === undefined || seed.invalid) continue;
      const obj = graph.objects.get(seed.object);
      if (!obj || obj.invalid || obj.platform) continue;
      for (const f of uniquesOf(seed, uniqueFields(obj))) yield { seed, id: f.name, key: (rec: SeedRecord) => uniqueText(rec[f.name]), fields: [f.name] };
    }
  },
  seedPass: (graph, context) => {
    // Per object, not per seed: its required fields and the fields that may be unique (a seed keyed by one drops it below).
    const fieldsOf = new Map<ObjectNode, { required: FieldNode[]; unique: FieldNode[] }>();
    return (seed, emit) => {
      if (seed.invalid) return undefined;
      const obj = graph.objects.get(seed.object);
      if (!obj || obj.invalid || obj.platform) return undefined;
      const artifact = { type: 'seed', name: seed.name };
      const who = (i: number) => `Seed ${q(seed.name)} record ${i}`;
      const problem = (i: number, field: FieldNode, path: string, what: string, fix: string): Finding => ({
        code: 'seed_value_invalid',
        artifact,
        ref: { type: 'object', name: obj.name, member: field.name },
        message: `${who(i)} ${what}; ObjectStack rejects the record when it writes it, so its row never lands.`,
        fix,
        path,
      });
      let fields = fieldsOf.get(obj);
      if (!fields) {
        fields = { required: [], unique: [] };
        const { required, unique } = fields;
        obj.fields.forEach((f) => {
          if (f.invalid) return;
          if (f.def.required === true && !COMPUTED.has(f.def.type) && f.def.defaultValue === undefined) required.push(f);
          if (f.def.unique !== undefined && f.def.unique !== false) unique.push(f);
        });
        fieldsOf.set(obj, fields);
      }
      const required = fields.required;
      const uniques = uniquesOf(seed, fields.unique);
      const seen = new Map<string, Map<string, number>>();
      // A stored seed: per unique field, the hashes of the values more than one record has (see SeedPassContext.repeated).
      const repeated = seed.stored === undefined ? undefined : new Map(uniques.map((f) => [f.name, context?.repeated(seed, f.name)]));
      // Indexed loops and one field lookup per key of the seed: this walks every seeded value.
      const judged = new Map<string, FieldNode | null>();
      const records = (chunk: readonly Readonly<Record<string, unknown>>[], offset: number) => {
        for (let r = 0; r < chunk.length; r++) {
          const rec = chunk[r]!;
          const i = offset + r;
          const keys = Object.keys(rec);
          for (let k = 0; k < keys.length; k++) {
            const key = keys[k]!;
            const v = rec[key];
            if (v === null || v === undefined) continue;
            if (isCel(v)) {
              const fn = celNotInObjectStack(v);
              const field = fn ? resolveField(obj, key) : undefined;
              if (fn && field && !field.invalid)
                emit(
                  problem(
                    i,
                    field,
                    pointer('records', i, key),
                    `computes ${q(key)} with CEL ${fn}(), which ObjectStack 17.4.0's CEL does not have`,
                    `Compute ${q(key)} with ${CEL_NOT_IN_OBJECTSTACK[fn]} instead of ${fn}() (in ${q((v as { source: string }).source)}).`,
                  ),
                );
              continue;
            }
            let field = judged.get(key);
            if (field === undefined) {
              const f = resolveField(obj, key);
              field = !f || f.invalid || f.system ? null : f;
              judged.set(key, field);
            }
            if (field === null) continue;
            const bad = wrongType(field, v);
            if (bad)
              emit(
                problem(
                  i,
                  field,
                  pointer('records', i, key),
                  `sets ${field.def.type} field ${q(key)} to ${bad}`,
                  `Give ${q(key)} ${bad.slice(bad.indexOf(', not ') + 6)}${field.def.type.startsWith('date') ? ', or a CEL value computed at publish such as daysAgo(3)' : ''}.`,
                ),
              );
            else {
              const over = outOfBounds(field, v);
              if (over) emit(problem(i, field, pointer('records', i, key), `sets ${field.def.type} field ${q(key)} to ${over[0]}`, over[1]));
            }
          }
          if (seed.mode !== 'update')
            for (const f of required)
              if (blank(rec[f.name]))
                emit(
                  problem(
                    i,
                    f,
                    pointer('records', i),
                    `leaves required ${f.def.type} field ${q(f.name)} ${f.name in rec ? 'empty' : 'unset'}`,
                    `Set ${q(f.name)} on every record of seed ${q(seed.name)}, or give the field a defaultValue.`,
                  ),
                );
          for (const f of uniques) {
            const v = rec[f.name];
            const text = uniqueText(v);
            if (text === undefined) continue;
            // A value no other record has (its hash is not repeated) is not kept.
            const maybe = repeated?.get(f.name);
            if (maybe && !maybe.has(keyHash(text))) continue;
            let values = seen.get(f.name);
            if (!values) seen.set(f.name, (values = new Map()));
            const first = values.get(text);
            if (first === undefined) values.set(text, i);
            else
              emit(
                problem(
                  i,
                  f,
                  pointer('records', i, f.name),
                  `repeats ${q(v)} in unique ${f.def.type} field ${q(f.name)} (record ${first} has it)`,
                  `Give record ${i} its own ${q(f.name)}, or drop one of the two records.`,
                ),
              );
          }
        }
      };
      return { records };
    };
  },
});
