import type { FieldDef, FieldNode, ObjectNode } from '@bvl/metadata';

/** Field types ObjectStack's record validator checks `maxLength` on. */
const TEXT_TYPES = new Set(['text', 'textarea', 'email', 'url', 'phone', 'password', 'markdown', 'html', 'richtext', 'code']);
/** Computed fields: the engine fills them, so `required` never asks the writer for a value. */
const COMPUTED_TYPES = new Set(['autonumber', 'formula', 'summary']);
/** Multi-value field types: for them `required` means a non-empty list. */
const MULTI_TYPES = new Set(['multiselect', 'checkboxes', 'tags']);

const isMulti = (def: FieldDef): boolean => def.multiple === true || MULTI_TYPES.has(def.type);
const isEmpty = (def: FieldDef, value: unknown): boolean =>
  value === undefined || value === null || value === '' || (isMulti(def) && Array.isArray(value) && value.length === 0);

/** A record the write contract rejects: the field and why. */
export interface ContractProblem {
  readonly field: string;
  readonly message: string;
}

/**
 * What ObjectStack's record validator refuses of a seed record before it reaches the database, so
 * L3 sees what production would (ADR-0113: `required` is a write-time contract, not a column
 * constraint). An insert must give every `required` field a value (an omitted field with a
 * `defaultValue` gets its column default); an update may leave a required field out but not clear
 * it; a text value may not be longer than the field's `maxLength`. Pure; the first problem wins.
 */
export function writeContractProblem(object: ObjectNode, record: Readonly<Record<string, unknown>>, write: 'insert' | 'update'): ContractProblem | undefined {
  for (const field of judgedFields(object)) {
    const { def, name } = field;
    const given = Object.hasOwn(record, name);
    const value = record[name];
    if (def.required === true && !COMPUTED_TYPES.has(def.type)) {
      if (write === 'insert' && isEmpty(def, value) && !(!given && def.defaultValue !== undefined && def.defaultValue !== null))
        return {
          field: name,
          message: `row not written: field "${name}" is required and the record gives it no value (ObjectStack rejects the insert)`,
        };
      if (write === 'update' && given && isEmpty(def, value))
        return { field: name, message: `row not updated: field "${name}" is required and the record clears it (ObjectStack rejects the update)` };
    }
    const max = def.maxLength;
    if (typeof max === 'number' && TEXT_TYPES.has(def.type) && typeof value === 'string' && value.length > max)
      return {
        field: name,
        message: `row not ${write === 'insert' ? 'written' : 'updated'}: the value of field "${name}" is ${value.length} characters long; its maxLength is ${max} (ObjectStack rejects the write)`,
      };
  }
  return undefined;
}

/** The fields of an object the contract can refuse a record on (required, or text with a maxLength), in field order; a seed asks once per record. */
const JUDGED = new WeakMap<ObjectNode, readonly FieldNode[]>();
function judgedFields(object: ObjectNode): readonly FieldNode[] {
  let fields = JUDGED.get(object);
  if (fields === undefined) {
    fields = [...object.fields.values()].filter(
      (f) =>
        !f.invalid &&
        !f.system &&
        ((f.def.required === true && !COMPUTED_TYPES.has(f.def.type)) || (typeof f.def.maxLength === 'number' && TEXT_TYPES.has(f.def.type))),
    );
    JUDGED.set(object, fields);
  }
  return fields;
}
