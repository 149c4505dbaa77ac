import { type ColumnDefinitionBuilder, type Kysely, type RawBuilder, sql } from 'kysely';
import { type BaseType, type ColumnType, typeSql } from './column-type.ts';
import type { ExistingForeignKey, ExistingSchema, ExistingTable, SchemaStep } from './diff-schema.ts';
import { identifierProblem } from './identifier.ts';
import type { ColumnDefault, ColumnPlan } from './plan-tables.ts';

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
const UDT_ARRAYS: Readonly<Record<string, BaseType>> = {
  _text: 'text',
  _numeric: 'numeric',
  _float8: 'double precision',
  _bool: 'boolean',
  _date: 'date',
  _timestamptz: 'timestamptz',
  _time: 'time',
  _jsonb: 'jsonb',
};
const ON_DELETE_CODES: Readonly<Record<string, string>> = { a: 'no action', r: 'restrict', c: 'cascade', n: 'set null', d: 'set default' };

/** Guard at the SQL boundary: the planner already refused bad names, so reaching this is a bug. */
function id(name: string): string {
  const problem = identifierProblem(name);
  if (problem) throw new Error(`refusing SQL identifier ${JSON.stringify(name.slice(0, 80))}: it ${problem}`);
  return name;
}

/** Reads the tables, columns, bvl-owned foreign keys and indexes of a tenant schema. */
export async function readExistingSchema<DB>(db: Kysely<DB>, schema: string): Promise<ExistingSchema> {
  const cols = await sql<{ table_name: string; column_name: string; data_type: string; udt_name: string }>`
    select table_name, column_name, data_type, udt_name from information_schema.columns
    where table_schema = ${schema} order by table_name, ordinal_position`.execute(db);
  const fks = await sql<{ name: string; table_name: string; column_name: string; target: string; on_delete: string }>`
    select c.conname as name, t.relname as table_name, a.attname as column_name, rt.relname as target, c.confdeltype::text as on_delete
    from pg_constraint c
    join pg_class t on t.oid = c.conrelid
    join pg_namespace n on n.oid = t.relnamespace
    join pg_class rt on rt.oid = c.confrelid
    join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
    where c.contype = 'f' and n.nspname = ${schema} and c.conname like 'fk\\_%'`.execute(db);
  const idx = await sql<{ indexname: string }>`select indexname from pg_indexes where schemaname = ${schema}`.execute(db);
  const tables = new Map<string, { columns: Map<string, ColumnType | 'other'>; foreignKeys: ExistingForeignKey[] }>();
  const table = (name: string) => {
    let t = tables.get(name);
    if (!t) tables.set(name, (t = { columns: new Map(), foreignKeys: [] }));
    return t;
  };
  for (const c of cols.rows) {
    const arrayBase = c.data_type === 'ARRAY' ? UDT_ARRAYS[c.udt_name] : undefined;
    const base = DATA_TYPES[c.data_type];
    table(c.table_name).columns.set(c.column_name, arrayBase ? { base: arrayBase, array: true } : base ? { base, array: false } : 'other');
  }
  for (const fk of fks.rows)
    table(fk.table_name).foreignKeys.push({ name: fk.name, column: fk.column_name, table: fk.target, onDelete: ON_DELETE_CODES[fk.on_delete] ?? fk.on_delete });
  return { tables: tables as ReadonlyMap<string, ExistingTable>, indexes: new Set(idx.rows.map((r) => r.indexname)) };
}

function defaultSql(d: ColumnDefault): RawBuilder<unknown> {
  switch (d.kind) {
    case 'uuid':
      return sql`gen_random_uuid()::text`;
    case 'now':
      return sql`now()`;
    case 'literal':
      // sql.lit inlines with the compiler's literal quoting; DDL cannot take parameters.
      return sql.lit(d.value);
  }
}

/** The USING expression that converts a column to a new type, keeping its values where it can. */
function usingExpr(column: string, from: ColumnType | 'other', to: ColumnType): RawBuilder<unknown> {
  const c = sql.id(id(column));
  if (to.base === 'jsonb' && !to.array && (from === 'other' || from.base !== 'jsonb')) return sql`to_jsonb(${c})`;
  if (to.array && from !== 'other' && !from.array)
    return sql`case when ${c} is null then null else array[${c}::${typeSql({ base: to.base, array: false })}] end`;
  // A list becoming text keeps every element, as JSON (the form a seed writes a list into a text
  // field); becoming another scalar keeps the first (a list of numbers has no lossless single number).
  if (!to.array && from !== 'other' && from.array && to.base === 'text') return sql`array_to_json(${c})::text`;
  if (!to.array && from !== 'other' && from.array) return sql`(${c})[1]::${typeSql(to)}`;
  return sql`${c}::${typeSql(to)}`;
}

/** The column's constraints: the primary key on `id`, and its default. */
function columnDef(column: ColumnPlan): (c: ColumnDefinitionBuilder) => ColumnDefinitionBuilder {
  return (c) => {
    let out = column.origin === 'id' ? c.primaryKey() : c;
    if (column.default) out = out.defaultTo(defaultSql(column.default));
    return out;
  };
}

/** Runs the steps in order on `db` (the publish transaction); `afterStep` is called after each. */
export async function applySchemaSteps<DB>(db: Kysely<DB>, schema: string, steps: readonly SchemaStep[], afterStep?: AfterStep): Promise<void> {
  const s = id(schema);
  const handlers = {
    create_table: async (step: Extract<SchemaStep, { kind: 'create_table' }>) => {
      let b = db.schema.withSchema(s).createTable(id(step.table));
      for (const column of step.columns) b = b.addColumn(id(column.name), typeSql(column.type), columnDef(column));
      await b.execute();
    },
    add_column: async (step: Extract<SchemaStep, { kind: 'add_column' }>) => {
      const c = step.column;
      await db.schema.withSchema(s).alterTable(id(step.table)).addColumn(id(c.name), typeSql(c.type), columnDef(c)).execute();
    },
    alter_column_type: async (step: Extract<SchemaStep, { kind: 'alter_column_type' }>) => {
      await sql`alter table ${sql.id(s, id(step.table))} alter column ${sql.id(id(step.column))} type ${typeSql(step.to)} using ${usingExpr(step.column, step.from, step.to)}`.execute(
        db,
      );
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
      await db.schema.withSchema(s).createIndex(id(step.name)).ifNotExists().on(id(step.table)).columns(step.columns.map(id)).execute();
    },
  } satisfies { [K in SchemaStep['kind']]: (step: Extract<SchemaStep, { kind: K }>) => Promise<void> };
  for (const [index, step] of steps.entries()) {
    await (handlers[step.kind] as (s: SchemaStep) => Promise<void>)(step);
    await afterStep?.(index, step);
  }
}
