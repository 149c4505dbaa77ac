import { type BuildIssue, makeIssue } from '@bvl/build-issue';
import { type FieldNode, type ObjectNode, pointer } from '@bvl/metadata';

const isBlank = (v: unknown): boolean =>
  v === undefined ||
  v === null ||
  (typeof v === 'string' && v.trim() === '') ||
  (Array.isArray(v) && v.length === 0) ||
  (typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0);

/** A CEL envelope `{dialect, source}` with an empty source is as inert as no expression. */
const blankExpression = (v: unknown): boolean =>
  isBlank(v) || (typeof v === 'object' && v !== null && 'source' in v && isBlank((v as { source: unknown }).source));

/** One inertness rule: which field types it covers, when a field is inert, and what to say. */
interface InertRule {
  readonly types: readonly string[];
  readonly inert: (f: FieldNode) => boolean;
  readonly why: string;
  readonly fix: string;
}

// ADR-0078 functional completeness. A multi-value choice with no options (multiselect, checkboxes, a
// select with multiple: true) is a deliberate non-rule: free-form tags (record-validator.ts).
const RULES: readonly InertRule[] = [
  {
    types: ['select', 'radio'],
    inert: (f) => isBlank(f.def.options) && f.def.multiple !== true,
    why: 'has no options, so its input offers nothing to choose and no value can be entered',
    fix: 'add options [{"label": …, "value": …}]',
  },
  {
    types: ['lookup', 'master_detail'],
    inert: (f) => isBlank(f.def.reference),
    why: 'has no reference, so it points at no object and its picker has no records to offer',
    fix: 'set "reference" to the object it points at',
  },
  {
    types: ['formula'],
    inert: (f) => blankExpression(f.def.expression),
    why: 'has no expression, so it never computes a value',
    fix: 'set "expression" (a CEL expression)',
  },
  {
    types: ['summary'],
    inert: (f) => isBlank(f.def.summaryOperations),
    why: 'has no summaryOperations, so it never aggregates anything',
    fix: 'set "summaryOperations" ({object, field, function})',
  },
];

/**
 * `inert_field`: fields that pass their schema but do nothing — a select/radio without options,
 * a lookup/master_detail without reference, a formula without expression, a summary without
 * summaryOperations. Fields that failed their own schema are L1's and skipped.
 */
export function checkInertFields(object: ObjectNode): BuildIssue[] {
  const issues: BuildIssue[] = [];
  if (object.invalid || object.platform) return issues;
  for (const field of object.fields.values()) {
    if (field.invalid || field.system) continue;
    const rule = RULES.find((r) => r.types.includes(field.def.type));
    if (!rule?.inert(field)) continue;
    issues.push(
      makeIssue({
        code: 'inert_field',
        artifact: { type: 'object', name: object.name },
        ref: { type: 'object', name: object.name, member: field.name },
        message: `Field "${field.name}" of object "${object.name}" is a ${field.def.type} that ${rule.why}.`,
        fix: `In field "${field.name}" of object "${object.name}", ${rule.fix}, or change its type.`,
        path: pointer('fields', field.name),
        draft: object.draft,
      }),
    );
  }
  return issues;
}
