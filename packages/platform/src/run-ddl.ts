import { type ColumnDefinitionBuilder, type Kysely, type RawBuilder, sql } from 'kysely';
import { type BaseType, type ColumnType, typeSql } from './column-type.ts';
import { conversionOf } from './convert-column.ts';
import type { ExistingForeignKey, ExistingSchema, ExistingTable, SchemaStep } from './diff-schema.ts';
import { identifierProblem } from './identifier.ts';
import type { ColumnDefault, ColumnPlan } from './plan-tables.ts';
import { buildShadow, isShadowColumn, swapShadow } from './shadow-columns.ts';

/** Called after each DDL step (tests inject a crash here to prove the publish rolls back). */
export type AfterStep = (index: number, step: SchemaStep) => void | Promise<void>;

const DATA_TYPES: Readonly<Record<string, BaseType>> = {
  text: 'text',
  numeric: 'numeric',
  'double precision': 'double precision',
  boolean: 'boolean',
  date: 'date',
  'timestamp with time zone': 'timestamptz',
  'time without time zone': 'time',
  jsonb: 'jsonb',
};
const ON_DELETE_CODES: Readonly<Record<string, string>> = { a: 'no action', r: 'restrict', c: 'cascade', n: 'set null', d: 'set default' };

/** Guard at the SQL boundary: the planner already refused bad names, so reaching this is a bug. */
function id(name: string): string {
  const problem = identifierProblem(name);
  if (problem) throw new Error(`refusing SQL identifier ${JSON.stringify(name.slice(0, 80))}: it ${problem}`);
  return name;
}

/** Splits `format_type` output (`text`, `timestamp with time zone`, `text[]`) into a column type, or `other`. */
function columnTypeOfSql(formatted: string): ColumnType | 'other' {
  const array = formatted.endsWith('[]');
  const base = DATA_TYPES[array ? formatted.slice(0, -2) : formatted];
  return base ? { base, array } : 'other';
}

/**
 * Reads the tables, columns (type, NOT NULL), bvl-owned foreign keys and indexes of a tenant schema
 * from pg_catalog, restricted to that schema by its name (information_schema would scan every
 * table of the database to filter them).
 */
export async function readExistingSchema<DB>(db: Kysely<DB>, schema: string): Promise<ExistingSchema> {
  // A default's expression as PostgreSQL prints it; with standard_conforming_strings off it doubles
  // the backslashes of a quoted literal, so that is undone (the map holds the form it prints with it on).
  const cols = await sql<{ table_name: string; column_name: string; type: string; not_null: boolean; default_sql: string | null; escaped: boolean }>`
    select c.relname as table_name, a.attname as column_name, format_type(a.atttypid, a.atttypmod) as type, a.attnotnull as not_null,
           pg_get_expr(d.adbin, d.adrelid) as default_sql, current_setting('standard_conforming_strings') = 'off' as escaped
    from pg_catalog.pg_attribute a
    join pg_catalog.pg_class c on c.oid = a.attrelid
    join pg_catalog.pg_namespace n on n.oid = c.relnamespace
    left join pg_catalog.pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
    where n.nspname = ${schema} and c.relkind in ('r', 'p', 'v', 'm', 'f') and a.attnum > 0 and not a.attisdropped
    order by c.relname, a.attnum`.execute(db);
  const fks = await sql<{ name: string; table_name: string; column_name: string; target: string; on_delete: string }>`
    select c.conname as name, t.relname as table_name, a.attname as column_name, rt.relname as target, c.confdeltype::text as on_delete
    from pg_catalog.pg_constraint c
    join pg_catalog.pg_class t on t.oid = c.conrelid
    join pg_catalog.pg_namespace n on n.oid = t.relnamespace
    join pg_catalog.pg_class rt on rt.oid = c.confrelid
    join pg_catalog.pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
    where c.contype = 'f' and n.nspname = ${schema} and left(c.conname, 3) = 'fk_'`.execute(db);
  const idx = await sql<{ name: string; table_name: string; is_unique: boolean }>`
    select ci.relname as name, ct.relname as table_name, i.indisunique as is_unique
    from pg_catalog.pg_index i
    join pg_catalog.pg_class ci on ci.oid = i.indexrelid
    join pg_catalog.pg_class ct on ct.oid = i.indrelid
    join pg_catalog.pg_namespace n on n.oid = ci.relnamespace
    where n.nspname = ${schema}`.execute(db);
  // The columns each index covers, as a key or in an expression (an index depends on each).
  const covered = await sql<{ table_name: string; column_name: string }>`
    select distinct ct.relname as table_name, a.attname as column_name
    from pg_catalog.pg_depend d
    join pg_catalog.pg_class ci on ci.oid = d.objid and ci.relkind = 'i'
    join pg_catalog.pg_class ct on ct.oid = d.refobjid
    join pg_catalog.pg_namespace n on n.oid = ct.relnamespace
    join pg_catalog.pg_attribute a on a.attrelid = d.refobjid and a.attnum = d.refobjsubid
    where d.classid = 'pg_catalog.pg_class'::regclass and d.refclassid = 'pg_catalog.pg_class'::regclass and d.refobjsubid > 0
      and n.nspname = ${schema}`.execute(db);
  const tables = new Map<
    string,
    {
      columns: Map<string, ColumnType | 'other'>;
      notNull: Set<string>;
      foreignKeys: ExistingForeignKey[];
      uniques: string[];
      defaults: Map<string, string>;
      indexed: Set<string>;
      shadows: Map<string, ColumnType | 'other'>;
    }
  >();
  const table = (name: string) => {
    let t = tables.get(name);
    if (!t)
      tables.set(
        name,
        (t = { columns: new Map(), notNull: new Set(), foreignKeys: [], uniques: [], defaults: new Map(), indexed: new Set(), shadows: new Map() }),
      );
    return t;
  };
  for (const c of cols.rows) {
    const t = table(c.table_name);
    // A shadow or retired column (a publish's, or a killed one's leftover) is never a user's column.
    if (isShadowColumn(c.column_name)) {
      t.shadows.set(c.column_name, columnTypeOfSql(c.type));
      continue;
    }
    t.columns.set(c.column_name, columnTypeOfSql(c.type));
    if (c.not_null) t.notNull.add(c.column_name);
    if (c.default_sql !== null) t.defaults.set(c.column_name, c.escaped ? c.default_sql.replaceAll('\\\\', '\\') : c.default_sql);
  }
  for (const c of covered.rows) table(c.table_name).indexed.add(c.column_name);
  for (const fk of fks.rows)
    table(fk.table_name).foreignKeys.push({ name: fk.name, column: fk.column_name, table: fk.target, onDelete: ON_DELETE_CODES[fk.on_delete] ?? fk.on_delete });
  for (const i of idx.rows) if (i.is_unique && i.name.startsWith('uq_')) table(i.table_name).uniques.push(i.name);
  return { tables: tables as ReadonlyMap<string, ExistingTable>, indexes: new Set(idx.rows.map((r) => r.name)) };
}

/**
 * A literal for DDL, which takes no parameters. Strings are written as E'' literals with every
 * backslash and quote escaped, which read the same whatever `standard_conforming_strings` says
 * (a plain '' literal with a backslash means two different things under the two settings).
 */
export function ddlLiteral(value: string | number | boolean): RawBuilder<unknown> {
  if (typeof value === 'boolean') return sql.raw(value ? 'true' : 'false');
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`refusing SQL literal ${value}: not a finite number`);
    return sql.raw(String(value));
  }
  if (value.includes('\u0000')) throw new Error('refusing SQL literal: it holds a NUL character');
  return sql.raw(`E'${value.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`);
}

function defaultSql(d: ColumnDefault): RawBuilder<unknown> {
  switch (d.kind) {
    case 'uuid':
      return sql`gen_random_uuid()::text`;
    case 'now':
      return sql`now()`;
    case 'literal':
      return ddlLiteral(d.value);
  }
}

/** The column's constraints: the primary key on `id`, its default, and NOT NULL (on a new table only: an added column gets it in its own step). */
function columnDef(column: ColumnPlan, creating: boolean): (c: ColumnDefinitionBuilder) => ColumnDefinitionBuilder {
  return (c) => {
    let out = column.origin === 'id' ? c.primaryKey() : c;
    if (column.default) out = out.defaultTo(defaultSql(column.default));
    if (creating && column.notNull && column.origin === 'field') out = out.notNull();
    return out;
  };
}

/** Runs the steps in order on `db` (the publish transaction); `afterStep` is called after each. */
export async function applySchemaSteps<DB>(db: Kysely<DB>, schema: string, steps: readonly SchemaStep[], afterStep?: AfterStep): Promise<void> {
  const s = id(schema);
  const handlers = {
    create_table: async (step: Extract<SchemaStep, { kind: 'create_table' }>) => {
      let b = db.schema.withSchema(s).createTable(id(step.table));
      for (const column of step.columns) b = b.addColumn(id(column.name), typeSql(column.type), columnDef(column, true));
      await b.execute();
    },
    add_column: async (step: Extract<SchemaStep, { kind: 'add_column' }>) => {
      const c = step.column;
      await db.schema.withSchema(s).alterTable(id(step.table)).addColumn(id(c.name), typeSql(c.type), columnDef(c, false)).execute();
    },
    alter_column_type: async (step: Extract<SchemaStep, { kind: 'alter_column_type' }>) => {
      const { using } = conversionOf(step.column, step.from, step.to);
      await sql`alter table ${sql.id(s, id(step.table))} alter column ${sql.id(id(step.column))} type ${typeSql(step.to)} using ${using}`.execute(db);
    },
    add_shadow_column: async (step: Extract<SchemaStep, { kind: 'add_shadow_column' }>) => {
      await buildShadow(db, s, id(step.table), id(step.column), step.from, step.to);
    },
    swap_shadow_column: async (step: Extract<SchemaStep, { kind: 'swap_shadow_column' }>) => {
      await swapShadow(db, s, id(step.table), id(step.column));
    },
    drop_foreign_key: async (step: Extract<SchemaStep, { kind: 'drop_foreign_key' }>) => {
      await db.schema.withSchema(s).alterTable(id(step.table)).dropConstraint(id(step.name)).ifExists().execute();
    },
    add_foreign_key: async (step: Extract<SchemaStep, { kind: 'add_foreign_key' }>) => {
      const onDelete = sql.raw({ 'set null': 'set null', cascade: 'cascade', restrict: 'restrict' }[step.references.onDelete]);
      await sql`alter table ${sql.id(s, id(step.table))} add constraint ${sql.id(id(step.name))} foreign key (${sql.id(id(step.column))}) references ${sql.id(s, id(step.references.table))} (id) on delete ${onDelete}${sql.raw(step.validate ? '' : ' not valid')}`.execute(
        db,
      );
    },
    create_index: async (step: Extract<SchemaStep, { kind: 'create_index' }>) => {
      const nullSafe = new Set(step.nullSafe ?? []);
      const keys = step.columns.map((c) => (nullSafe.has(c) ? sql`(coalesce(${sql.id(id(c))}, ''))` : sql.id(id(c))));
      await sql`create ${sql.raw(step.unique ? 'unique ' : '')}index if not exists ${sql.id(id(step.name))} on ${sql.id(s, id(step.table))} (${sql.join(keys)})`.execute(
        db,
      );
    },
    drop_index: async (step: Extract<SchemaStep, { kind: 'drop_index' }>) => {
      await sql`drop index if exists ${sql.id(s, id(step.name))}`.execute(db);
    },
    set_not_null: async (step: Extract<SchemaStep, { kind: 'set_not_null' }>) => {
      await sql`alter table ${sql.id(s, id(step.table))} alter column ${sql.id(id(step.column))} set not null`.execute(db);
    },
    drop_not_null: async (step: Extract<SchemaStep, { kind: 'drop_not_null' }>) => {
      await sql`alter table ${sql.id(s, id(step.table))} alter column ${sql.id(id(step.column))} drop not null`.execute(db);
    },
    set_default: async (step: Extract<SchemaStep, { kind: 'set_default' }>) => {
      await sql`alter table ${sql.id(s, id(step.table))} alter column ${sql.id(id(step.column))} set default ${defaultSql(step.default)}`.execute(db);
    },
    drop_default: async (step: Extract<SchemaStep, { kind: 'drop_default' }>) => {
      await sql`alter table ${sql.id(s, id(step.table))} alter column ${sql.id(id(step.column))} drop default`.execute(db);
    },
  } satisfies { [K in SchemaStep['kind']]: (step: Extract<SchemaStep, { kind: K }>) => Promise<void> };
  for (const [index, step] of steps.entries()) {
    await (handlers[step.kind] as (s: SchemaStep) => Promise<void>)(step);
    await afterStep?.(index, step);
  }
}
