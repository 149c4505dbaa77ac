import type { FieldDef, FieldType } from '@bvl/metadata';
import { type RawBuilder, sql } from 'kysely';

/** The Postgres base types a field can map to. */
export const BASE_TYPES = ['text', 'numeric', 'double precision', 'boolean', 'date', 'timestamptz', 'time', 'jsonb'] as const;
/** One of {@link BASE_TYPES}. */
export type BaseType = (typeof BASE_TYPES)[number];

/** A column's type: a base type, or an array of it. */
export interface ColumnType {
  readonly base: BaseType;
  readonly array: boolean;
}

/**
 * Field type → column type. Choices worth knowing:
 * - relations (lookup, master_detail, tree, user) hold the target row's `id` (text);
 * - multi-value choices (multiselect, checkboxes, tags) are text[]; any field with `multiple: true`
 *   becomes an array of its base type (structured jsonb fields stay jsonb);
 * - formula → text and summary → numeric: bvl does not compute them, the columns exist (nullable)
 *   so views and datasets that read them work; summaries are numeric because datasets sum them;
 * - media (image, file, …) hold a URL or file reference (text); structured values are jsonb;
 * - vector is double precision[] (no pgvector dependency).
 */
export const FIELD_COLUMN_TYPES = {
  text: 'text',
  textarea: 'text',
  email: 'text',
  url: 'text',
  phone: 'text',
  password: 'text',
  secret: 'text',
  markdown: 'text',
  html: 'text',
  richtext: 'text',
  number: 'numeric',
  currency: 'numeric',
  percent: 'numeric',
  rating: 'numeric',
  slider: 'numeric',
  progress: 'numeric',
  date: 'date',
  datetime: 'timestamptz',
  time: 'time',
  boolean: 'boolean',
  toggle: 'boolean',
  select: 'text',
  radio: 'text',
  multiselect: 'text[]',
  checkboxes: 'text[]',
  tags: 'text[]',
  lookup: 'text',
  master_detail: 'text',
  tree: 'text',
  user: 'text',
  image: 'text',
  file: 'text',
  avatar: 'text',
  video: 'text',
  audio: 'text',
  formula: 'text',
  summary: 'numeric',
  autonumber: 'text',
  composite: 'jsonb',
  repeater: 'jsonb',
  record: 'jsonb',
  location: 'jsonb',
  address: 'jsonb',
  json: 'jsonb',
  code: 'text',
  color: 'text',
  signature: 'text',
  qrcode: 'text',
  vector: 'double precision[]',
} as const satisfies Record<FieldType, BaseType | `${BaseType}[]`>;

/** A formula may declare what it returns; these spellings map to a column type. */
const FORMULA_RETURN_TYPES: Readonly<Record<string, BaseType>> = {
  text: 'text',
  string: 'text',
  number: 'numeric',
  currency: 'numeric',
  percent: 'numeric',
  boolean: 'boolean',
  date: 'date',
  datetime: 'timestamptz',
};

/** The column type of a field (see {@link FIELD_COLUMN_TYPES} for the table and its reasons). */
export function columnTypeOf(def: FieldDef): ColumnType {
  let mapped: string = FIELD_COLUMN_TYPES[def.type];
  if (def.type === 'formula') {
    const declared = [def.returnType, def.dataType, def.formulaType].find((v): v is string => typeof v === 'string');
    const base = declared ? FORMULA_RETURN_TYPES[declared] : undefined;
    if (base) mapped = base;
  }
  const array = mapped.endsWith('[]');
  const base = (array ? mapped.slice(0, -2) : mapped) as BaseType;
  return { base, array: array || (def.multiple === true && base !== 'jsonb') };
}

/** The SQL spelling of a column type (`text`, `text[]`, …); built only from {@link BASE_TYPES}. */
export function sqlTypeName(type: ColumnType): string {
  return type.array ? `${type.base}[]` : type.base;
}

/** Whether two column types are the same. */
export function sameColumnType(a: ColumnType, b: ColumnType): boolean {
  return a.base === b.base && a.array === b.array;
}

/** The column type as SQL; inlined safely because it is built only from {@link BASE_TYPES}. */
export function typeSql(type: ColumnType): RawBuilder<unknown> {
  if (!(BASE_TYPES as readonly string[]).includes(type.base)) throw new Error(`unknown column type ${type.base}`);
  return sql.raw(sqlTypeName(type));
}
