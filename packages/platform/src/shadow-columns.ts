import { createHash } from 'node:crypto';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { type ColumnType, sameColumnType, typeSql } from './column-type.ts';
import { conversionOf } from './convert-column.ts';
import type { BvlDatabase } from './database.ts';
import type { ExistingSchema, SchemaStep } from './diff-schema.ts';
import { BVL_COLUMN, identifierProblem } from './identifier.ts';
import type { TablePlan } from './plan-tables.ts';
import type { PackageScope } from './scope.ts';

/**
 * Shadow columns (issue 21): a column whose type a republish changes is built ahead of the switch
 * as a nullable column of the new type (`bvl_sh_<h>`), kept equal to the conversion of the live
 * column by a BEFORE INSERT OR UPDATE trigger (`bvl_tg_<h>`, function `bvl_fn_<h>`; the conversion
 * never raises, so the trigger never fails a write) and backfilled. The switch then only renames:
 * live → `bvl_rt_<h>` (retired), shadow → live — one ACCESS EXCLUSIVE lock on the table, no
 * rewrite. The retired column (and with it the trigger, and its function) is dropped after the commit.
 * `<h>` hashes the table and column, so every name is derivable from any one of them.
 */
const PREFIXES = { shadow: 'bvl_sh_', retired: 'bvl_rt_', trigger: 'bvl_tg_', fn: 'bvl_fn_' } as const;

const hashOf = (table: string, column: string): string => createHash('sha256').update(`${table}\u0000${column}`).digest('hex').slice(0, 24);

/** The names of a column's shadow, retired column, trigger and trigger function. */
export function shadowNames(table: string, column: string): { shadow: string; retired: string; trigger: string; fn: string } {
  const h = hashOf(table, column);
  return { shadow: `${PREFIXES.shadow}${h}`, retired: `${PREFIXES.retired}${h}`, trigger: `${PREFIXES.trigger}${h}`, fn: `${PREFIXES.fn}${h}` };
}

/** Whether a column name is a shadow or retired column bvl made (never a user's column: plan-tables refuses a field of such a name). */
export const isShadowColumn = (name: string): boolean => BVL_COLUMN.test(name);

/** The trigger function a shadow or retired column's row in bvl.publish_staging goes with, or undefined. */
export function shadowFunctionOf(member: string): string | undefined {
  const m = BVL_COLUMN.exec(member);
  return m ? `${PREFIXES.fn}${m[2]}` : undefined;
}

/**
 * Whether a type change of `column` in `table` can go through a shadow column: the table exists,
 * the column is nullable, has no default, no index, no foreign key, and stays no lookup (those
 * constraints would have to move with it; the change stays in the switch, counted as it is).
 */
export function shadowable(step: Extract<SchemaStep, { kind: 'alter_column_type' }>, existing: ExistingSchema, tables: readonly TablePlan[]): boolean {
  const have = existing.tables.get(step.table);
  if (!have || identifierProblem(step.column)) return false;
  if (have.notNull?.has(step.column) || have.defaults?.has(step.column) || have.indexed?.has(step.column)) return false;
  if (have.foreignKeys.some((fk) => fk.column === step.column)) return false;
  const planned = tables.find((t) => t.name === step.table)?.columns.find((c) => c.name === step.column);
  return planned !== undefined && planned.references === undefined && planned.default === undefined;
}

/**
 * The switch's steps with each type change whose shadow is built and of the new type turned into
 * a swap (the rest as they were).
 */
export function useShadows(steps: readonly SchemaStep[], existing: ExistingSchema): SchemaStep[] {
  return steps.map((s) => {
    if (s.kind !== 'alter_column_type') return s;
    const shadow = existing.tables.get(s.table)?.shadows?.get(shadowNames(s.table, s.column).shadow);
    if (shadow === undefined || shadow === 'other' || !sameColumnType(shadow, s.to)) return s;
    return { kind: 'swap_shadow_column', table: s.table, column: s.column, from: s.from, to: s.to };
  });
}

/** Compiles a raw expression to SQL text (DDL takes no parameters; the conversions hold none). */
function textOf<DB>(db: Kysely<DB>, e: RawBuilder<unknown>): string {
  const c = e.compile(db);
  if (c.parameters.length > 0) throw new Error('a column conversion with parameters cannot go into a trigger');
  return c.sql;
}

/**
 * Builds a column's shadow (see the top of this file): the column, the function and trigger that
 * keep it converted from the live column on every insert and every update that sets either, then
 * the backfill of every row. Runs in one of the publish's batches ahead of the switch.
 */
export async function buildShadow<DB>(
  db: Kysely<DB>,
  schema: string,
  table: string,
  column: string,
  from: ColumnType | 'other',
  to: ColumnType,
): Promise<void> {
  const n = shadowNames(table, column);
  const t = sql.id(schema, table);
  const { using } = conversionOf(column, from, to);
  await sql`alter table ${t} add column if not exists ${sql.id(n.shadow)} ${typeSql(to)}`.execute(db);
  // The conversion reads the live column by its name: a one-column subquery gives it that name.
  // Once the switch renamed the columns the row has no field of the shadow's name, and the
  // function does nothing (the trigger stays until the retired column is dropped, with it).
  const shadow = textOf(db, sql`${sql.id(n.shadow)}`);
  const live = textOf(db, sql`${sql.id(column)}`);
  const body = `begin if to_jsonb(new) ? '${n.shadow}' then new.${shadow} := (select ${textOf(db, using)} from (select new.${live}) as s(${live})); end if; return new; end`;
  if (body.includes('$bvl$')) throw new Error('refusing a trigger body holding its own quote');
  await sql`create or replace function ${sql.id(schema, n.fn)}() returns trigger language plpgsql as ${sql.raw(`$bvl$${body}$bvl$`)}`.execute(db);
  await sql`drop trigger if exists ${sql.id(n.trigger)} on ${t}`.execute(db);
  // UPDATE OF the live column only: the backfill below (which sets the shadow) does not fire it,
  // and the trigger depends on that column, so dropping it once retired drops the trigger too.
  await sql`create trigger ${sql.id(n.trigger)} before insert or update of ${sql.id(column)} on ${t} for each row execute function ${sql.id(schema, n.fn)}()`.execute(
    db,
  );
  await sql`update ${t} set ${sql.id(n.shadow)} = ${using}`.execute(db);
}

/**
 * The switch's part: the live column is retired and the shadow takes its name — two renames, one
 * lock on the table and no rewrite. The trigger stays (it does nothing now, see buildShadow) and
 * goes with the retired column after the commit: dropping it in the switch would lock it too.
 */
export async function swapShadow<DB>(db: Kysely<DB>, schema: string, table: string, column: string): Promise<void> {
  const n = shadowNames(table, column);
  const t = sql.id(schema, table);
  await sql`alter table ${t} rename column ${sql.id(column)} to ${sql.id(n.retired)}`.execute(db);
  await sql`alter table ${t} rename column ${sql.id(n.shadow)} to ${sql.id(column)}`.execute(db);
}

/**
 * Inside the switch, after its DDL: each shadow it swapped in is the column now (its row goes),
 * and the column it retired is recorded, to be dropped after the commit (see dropStaged) — by
 * this publish, or by the tenant's next one if this one is killed first.
 */
export async function recordSwaps(trx: Kysely<BvlDatabase>, scope: PackageScope, steps: readonly SchemaStep[]): Promise<void> {
  const swaps = steps.flatMap((s) => (s.kind === 'swap_shadow_column' ? [{ table: s.table, ...shadowNames(s.table, s.column) }] : []));
  for (let i = 0; i < swaps.length; i += 1000) {
    const part = swaps.slice(i, i + 1000);
    await trx
      .deleteFrom('bvl.publish_staging')
      .where('tenant_id', '=', scope.tenant)
      .where('kind', '=', 'column')
      .where(sql<boolean>`(table_name, member) in (select * from unnest(${part.map((p) => p.table)}::text[], ${part.map((p) => p.shadow)}::text[]))`)
      .execute();
    await trx
      .insertInto('bvl.publish_staging')
      .values(part.map((p) => ({ tenant_id: scope.tenant, package: scope.package, kind: 'column' as const, table_name: p.table, member: p.retired })))
      .execute();
  }
}
