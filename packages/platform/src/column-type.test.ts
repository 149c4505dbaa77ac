import { FIELD_TYPES } from '@bvl/metadata';
import { describe, expect, it } from 'vitest';
import { BASE_TYPES, columnTypeOf, FIELD_COLUMN_TYPES, sqlTypeName } from './column-type.ts';

describe('columnTypeOf', () => {
  it('maps every field type to a known base type', () => {
    for (const type of FIELD_TYPES) expect(BASE_TYPES).toContain(columnTypeOf({ type }).base);
    expect(Object.keys(FIELD_COLUMN_TYPES).sort()).toEqual([...FIELD_TYPES].sort());
  });
  const table: Array<[string, Parameters<typeof columnTypeOf>[0], string]> = [
    ['text', { type: 'text' }, 'text'],
    ['currency', { type: 'currency' }, 'numeric'],
    ['date', { type: 'date' }, 'date'],
    ['datetime', { type: 'datetime' }, 'timestamptz'],
    ['time', { type: 'time' }, 'time'],
    ['toggle', { type: 'toggle' }, 'boolean'],
    ['lookup → the target id', { type: 'lookup', reference: 'a' }, 'text'],
    ['multiple lookup → ids', { type: 'lookup', reference: 'a', multiple: true }, 'text[]'],
    ['multiple user', { type: 'user', multiple: true }, 'text[]'],
    ['multiselect', { type: 'multiselect' }, 'text[]'],
    ['select multiple', { type: 'select', multiple: true }, 'text[]'],
    ['json stays jsonb when multiple', { type: 'json', multiple: true }, 'jsonb'],
    ['location', { type: 'location' }, 'jsonb'],
    ['vector', { type: 'vector' }, 'double precision[]'],
    ['formula without a return type', { type: 'formula' }, 'text'],
    ['formula returning a number', { type: 'formula', returnType: 'number' }, 'numeric'],
    ['summary', { type: 'summary' }, 'numeric'],
  ];
  it.each(table)('%s', (_label, def, sql) => expect(sqlTypeName(columnTypeOf(def))).toBe(sql));
});
