import type { ColumnType } from './column-type.ts';
import { type CelValue, evaluateCel, isCelEnvelope } from './evaluate-cel.ts';

/** A seed value ready to bind as a parameter, or why it cannot be. */
export type ColumnValue = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: string };

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);

/**
 * Turns a seed record value into the parameter for a column of `type`: CEL envelopes are evaluated
 * against `now`, instants become ISO text (a calendar day for date columns), jsonb values become
 * JSON text, a scalar given to an array column becomes a one-element array. Scalars are otherwise
 * passed through and the database judges them, so a wrong value fails with Postgres' own clear
 * message (`invalid input syntax for type numeric: "abc"`). Pure.
 */
export function toColumnValue(value: unknown, type: ColumnType, now: Date): ColumnValue {
  if (value === undefined || value === null) return { ok: true, value: null };
  let v: unknown = value;
  if (isCelEnvelope(v)) {
    const r = evaluateCel(v.source, now);
    if (!r.ok) return r;
    v = fromCel(r.value);
    if (v === undefined) return { ok: false, error: `CEL "${(value as { source: string }).source}" evaluates to a duration, which no column holds` };
  }
  if (type.base === 'jsonb') return { ok: true, value: JSON.stringify(v instanceof Date ? v.toISOString() : v) };
  if (type.array) {
    const items = Array.isArray(v) ? v : [v];
    const out: unknown[] = [];
    for (const item of items) {
      const s = scalar(item, type);
      if (!s.ok) return s;
      out.push(s.value);
    }
    return { ok: true, value: out };
  }
  return scalar(v, type);
}

function scalar(v: unknown, type: ColumnType): ColumnValue {
  if (v === undefined || v === null) return { ok: true, value: null };
  if (isCelEnvelope(v)) return { ok: false, error: 'a CEL value inside a list is not evaluated; write the list items as plain values' };
  if (v instanceof Date) {
    const iso = v.toISOString();
    if (type.base === 'date') return { ok: true, value: iso.slice(0, 10) };
    if (type.base === 'time') return { ok: true, value: iso.slice(11, 19) };
    return { ok: true, value: iso };
  }
  if (Array.isArray(v) || isPlainObject(v)) {
    // Text columns keep structured values as JSON text; other scalar columns cannot hold them.
    if (type.base === 'text') return { ok: true, value: JSON.stringify(v) };
    return { ok: false, error: `${Array.isArray(v) ? 'a list' : 'an object'} is not a ${type.base} value` };
  }
  if (typeof v === 'number' && !Number.isFinite(v)) return { ok: false, error: `${v} is not a finite number` };
  if ((typeof v === 'number' || typeof v === 'boolean') && type.base === 'text') return { ok: true, value: String(v) };
  return { ok: true, value: v };
}

function fromCel(v: CelValue): unknown {
  if (typeof v !== 'object') return v;
  return v.kind === 'instant' ? v.at : undefined;
}
