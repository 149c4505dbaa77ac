import { type RawBuilder, sql } from 'kysely';
import { type BaseType, type ColumnType, typeSql } from './column-type.ts';
import { identifierProblem } from './identifier.ts';

/**
 * How a column's values become a new type: the `USING` expression of `ALTER … TYPE`, which never
 * raises (a value the new type cannot hold becomes null, through migration 0004's `bvl.try_*`
 * functions), and the predicate that is true for each row whose value the conversion would lose
 * or change, so a publish can count them before it converts anything.
 */
export interface Conversion {
  readonly using: RawBuilder<unknown>;
  /** True for rows the conversion loses data of; undefined when the conversion is lossless. */
  readonly lossy?: RawBuilder<boolean> | undefined;
  /** What the lossy rows hold, completing "N rows …": `hold more than one value`. */
  readonly rows: string;
  /** What converting loses of them, completing "the conversion loses …": `every value but the first`. */
  readonly loses: string;
}

/** The never-raising text → type parsers migration 0004 creates (text and jsonb need none). */
const PARSERS: Readonly<Record<Exclude<BaseType, 'text' | 'jsonb'>, string>> = {
  numeric: 'bvl.try_numeric',
  'double precision': 'bvl.try_float8',
  boolean: 'bvl.try_boolean',
  date: 'bvl.try_date',
  timestamptz: 'bvl.try_timestamptz',
  time: 'bvl.try_time',
};

const show = (t: ColumnType | 'other'): string => (t === 'other' ? 'a type bvl did not create' : t.array ? `a list of ${t.base}` : t.base);

/** A scalar element as text: jsonb strings unwrapped (`"a"` → `a`), everything else by its text form. */
const asText = (e: RawBuilder<unknown>, base: BaseType): RawBuilder<unknown> => (base === 'jsonb' ? sql`(${e} #>> '{}')` : sql`(${e})::text`);

/** Text parsed into `base` without raising. */
const parse = (text: RawBuilder<unknown>, base: BaseType): RawBuilder<unknown> =>
  base === 'text' ? text : base === 'jsonb' ? sql`to_jsonb(${text})` : sql`${sql.raw(PARSERS[base])}(${text})`;

/**
 * The conversion of `column` from `from` to `to` (see {@link Conversion}). Arrays become scalars by
 * their first element (a row with more than one is lossy); scalars become one-element arrays;
 * text becomes a typed value when it parses (a row that does not is lossy); a typed value becomes
 * another type when it survives the round trip (a datetime with a time of day does not survive
 * becoming a date: lossy); anything becomes text or jsonb without loss.
 */
export function conversionOf(column: string, from: ColumnType | 'other', to: ColumnType): Conversion {
  if (identifierProblem(column)) throw new Error(`refusing SQL identifier ${JSON.stringify(column.slice(0, 80))}`);
  const c = sql.id(column);
  const target = typeSql(to);
  if (to.base === 'jsonb') return { using: sql`to_jsonb(${c})`, rows: '', loses: '' };
  const source: ColumnType = from === 'other' ? { base: 'text', array: false } : from;
  const value = from === 'other' ? sql`(${c})::text` : sql`${c}`;
  const fb = source.base;
  const tb = to.base;
  const conv = (e: RawBuilder<unknown>): RawBuilder<unknown> => (fb === tb ? e : parse(asText(e, fb), tb));
  // Whether an element's value does not come through: text that does not parse, or a typed value
  // that does not read back the same (a datetime's time of day becoming a date).
  const changed = (e: RawBuilder<unknown>): RawBuilder<boolean> | undefined => {
    if (fb === tb || tb === 'text') return undefined;
    if (fb === 'text') return sql<boolean>`(${e} is not null and ${conv(e)} is null)`;
    const back = fb === 'jsonb' ? sql`to_jsonb(${conv(e)})` : parse(sql`(${conv(e)})::text`, fb);
    return sql<boolean>`(${e} is not null and ${back} is distinct from ${e})`;
  };
  const [rows, loses] =
    fb === tb
      ? ['hold more than one value', 'every value but the first']
      : fb === 'text' || from === 'other'
        ? [`hold values that are not valid ${tb}`, 'those values (the rows are left empty)']
        : fb === 'timestamptz' && tb === 'date'
          ? ['hold a time of day other than midnight UTC', 'the time of day']
          : [`hold values that do not convert from ${show(from)} to ${tb} unchanged`, 'their exact values'];
  if (!source.array && !to.array) return { using: sql`${conv(value)}::${target}`, lossy: changed(value), rows, loses };
  if (!source.array && to.array)
    return { using: sql`case when ${value} is null then null else array[${conv(value)}]::${target} end`, lossy: changed(value), rows, loses };
  const first = sql`(${value})[1]`;
  if (source.array && !to.array) {
    const bad = changed(first);
    const many = sql<boolean>`coalesce(cardinality(${value}) > 1, false)`;
    return {
      using: sql`${conv(first)}::${target}`,
      lossy: bad ? sql<boolean>`(${many} or ${bad})` : many,
      ...(fb === tb
        ? { rows: 'hold more than one value', loses: 'every value but the first' }
        : {
            rows: `hold more than one value, or a first value that is not valid ${tb}`,
            loses: 'every value but the first, and first values that do not convert',
          }),
    };
  }
  const x = sql.ref('u.x');
  const bad = changed(x);
  return {
    using: sql`case when ${value} is null then null else array(select ${conv(x)} from unnest(${value}) with ordinality as u(x, o) order by u.o)::${target} end`,
    lossy: bad ? sql<boolean>`exists (select 1 from unnest(${value}) as u(x) where ${bad})` : undefined,
    rows,
    loses,
  };
}

/** A column type as messages name it: `date`, `a list of text`. */
export const describeColumnType = show;
