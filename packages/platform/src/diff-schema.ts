import { type ColumnType, sameColumnType } from './column-type.ts';
import { type ColumnDefault, type ColumnPlan, derivedName, type ForeignKeyPlan, type TablePlan } from './plan-tables.ts';

/** A foreign key bvl created earlier (constraints named `fk_…`). */
export interface ExistingForeignKey {
  readonly name: string;
  readonly column: string;
  readonly table: string;
  readonly onDelete: string;
}

/** A table as the database has it now. A column of a type bvl never creates reads as `other`. */
export interface ExistingTable {
  readonly columns: ReadonlyMap<string, ColumnType | 'other'>;
  readonly foreignKeys: readonly ExistingForeignKey[];
  /** Columns declared NOT NULL. */
  readonly notNull?: ReadonlySet<string> | undefined;
  /** Unique indexes bvl created (named `uq_…`). */
  readonly uniques?: readonly string[] | undefined;
  /**
   * Columns with a default, each with its expression as PostgreSQL prints it (`pg_get_expr`, e.g.
   * `'open'::text`, `5`, `true`). Absent: not read, and a republish leaves defaults as they are.
   */
  readonly defaults?: ReadonlyMap<string, string> | undefined;
  /** Columns some index covers (as a key or in an expression). */
  readonly indexed?: ReadonlySet<string> | undefined;
  /** Shadow and retired columns bvl built (see shadow-columns.ts), by name: never among `columns`. */
  readonly shadows?: ReadonlyMap<string, ColumnType | 'other'> | undefined;
}

/** A tenant schema as the database has it now. */
export interface ExistingSchema {
  readonly tables: ReadonlyMap<string, ExistingTable>;
  readonly indexes: ReadonlySet<string>;
}

/** One DDL step; {@link diffSchema} orders them so every step's prerequisites come first. */
export type SchemaStep =
  | { readonly kind: 'create_table'; readonly table: string; readonly columns: readonly ColumnPlan[] }
  | { readonly kind: 'add_column'; readonly table: string; readonly column: ColumnPlan }
  | { readonly kind: 'alter_column_type'; readonly table: string; readonly column: string; readonly from: ColumnType | 'other'; readonly to: ColumnType }
  /** Ahead of the switch: a shadow column of the new type, kept converted by a trigger, backfilled (see shadow-columns.ts). */
  | { readonly kind: 'add_shadow_column'; readonly table: string; readonly column: string; readonly from: ColumnType | 'other'; readonly to: ColumnType }
  /** In the switch, instead of alter_column_type: the shadow built ahead takes the column's place. */
  | { readonly kind: 'swap_shadow_column'; readonly table: string; readonly column: string; readonly from: ColumnType | 'other'; readonly to: ColumnType }
  | { readonly kind: 'drop_foreign_key'; readonly table: string; readonly name: string }
  | {
      readonly kind: 'add_foreign_key';
      readonly table: string;
      readonly name: string;
      readonly column: string;
      readonly references: ForeignKeyPlan;
      readonly validate: boolean;
    }
  | {
      readonly kind: 'create_index';
      readonly table: string;
      readonly name: string;
      readonly columns: readonly string[];
      readonly unique?: boolean | undefined;
      readonly nullSafe?: readonly string[] | undefined;
    }
  | { readonly kind: 'drop_index'; readonly table: string; readonly name: string }
  | { readonly kind: 'set_not_null'; readonly table: string; readonly column: string }
  | { readonly kind: 'drop_not_null'; readonly table: string; readonly column: string }
  /** A field's defaultValue changed: the column's default follows (a new column gets its default when added). */
  | { readonly kind: 'set_default'; readonly table: string; readonly column: string; readonly default: ColumnDefault }
  | { readonly kind: 'drop_default'; readonly table: string; readonly column: string };

/** The constraint name of a lookup column's foreign key. */
export function foreignKeyName(table: string, column: string): string {
  return derivedName('fk', table, column);
}

/**
 * The steps that take `existing` to `planned`. Additive by design: a column or table the metadata
 * no longer mentions is kept (publishing never drops data); a changed field type alters the column
 * in place; foreign keys bvl owns are dropped and re-added when their target or delete rule changes.
 * New foreign keys on tables that already hold rows are added NOT VALID (old rows are not
 * re-checked; new writes are). Constraints follow the fields: NOT NULL (`storage.notNull`) and
 * unique indexes are added and dropped with them, and so are column defaults (a field's changed
 * defaultValue); relaxing goes first, tightening last. Pure.
 */
export function diffSchema(planned: readonly TablePlan[], existing: ExistingSchema): SchemaStep[] {
  const creates: SchemaStep[] = [];
  const columns: SchemaStep[] = [];
  const drops: SchemaStep[] = [];
  const relax: SchemaStep[] = [];
  const adds: SchemaStep[] = [];
  const tighten: SchemaStep[] = [];
  const indexes: SchemaStep[] = [];
  for (const table of planned) {
    const have = existing.tables.get(table.name);
    if (!have) creates.push({ kind: 'create_table', table: table.name, columns: table.columns });
    else {
      for (const column of table.columns) {
        const current = have.columns.get(column.name);
        if (current === undefined) {
          columns.push({ kind: 'add_column', table: table.name, column });
          if (column.notNull) tighten.push({ kind: 'set_not_null', table: table.name, column: column.name });
          continue;
        }
        if (column.origin !== 'id' && (current === 'other' || !sameColumnType(current, column.type))) {
          columns.push({ kind: 'alter_column_type', table: table.name, column: column.name, from: current, to: column.type });
        }
        if (column.origin !== 'field') continue;
        const isNotNull = have.notNull?.has(column.name) === true;
        if (column.notNull && !isNotNull) tighten.push({ kind: 'set_not_null', table: table.name, column: column.name });
        else if (!column.notNull && isNotNull) relax.push({ kind: 'drop_not_null', table: table.name, column: column.name });
        if (have.defaults && !sameDefault(column.default, have.defaults.get(column.name))) {
          if (column.default) tighten.push({ kind: 'set_default', table: table.name, column: column.name, default: column.default });
          else relax.push({ kind: 'drop_default', table: table.name, column: column.name });
        }
      }
      const wantedUniques = new Set(table.indexes.filter((i) => i.unique).map((i) => i.name));
      for (const name of have.uniques ?? []) if (!wantedUniques.has(name)) relax.push({ kind: 'drop_index', table: table.name, name });
    }
    const owned = new Map((have?.foreignKeys ?? []).map((fk) => [fk.name, fk]));
    const wanted = new Set<string>();
    for (const column of table.columns) {
      if (!column.references) continue;
      const name = foreignKeyName(table.name, column.name);
      wanted.add(name);
      const current = owned.get(name);
      if (current && current.table === column.references.table && current.onDelete === column.references.onDelete && current.column === column.name) continue;
      if (current) drops.push({ kind: 'drop_foreign_key', table: table.name, name });
      adds.push({ kind: 'add_foreign_key', table: table.name, name, column: column.name, references: column.references, validate: !have });
    }
    for (const fk of owned.values()) if (!wanted.has(fk.name)) drops.push({ kind: 'drop_foreign_key', table: table.name, name: fk.name });
    for (const index of table.indexes)
      if (!existing.indexes.has(index.name))
        indexes.push({
          kind: 'create_index',
          table: table.name,
          name: index.name,
          columns: index.columns,
          ...(index.unique ? { unique: true } : {}),
          ...(index.nullSafe ? { nullSafe: index.nullSafe } : {}),
        });
  }
  // Stale foreign keys and constraints go before column changes (a lookup turned `multiple` changes
  // type); new ones go after them, when every target table and column exists.
  return [...creates, ...drops, ...relax, ...columns, ...adds, ...tighten, ...indexes];
}

/**
 * Whether a column's default, `expr` as PostgreSQL prints it (or undefined: none), is `planned`.
 * bvl gives field columns literal defaults only; PostgreSQL prints them back as a bare constant
 * (`5`, `5.50`, `true`) or a quoted one with a cast (`'open'::text`, `'-5'::integer`). Anything
 * else is not bvl's literal, so it differs from any planned one (and a planned non-literal, which
 * fields never have, is left alone).
 */
export function sameDefault(planned: ColumnDefault | undefined, expr: string | undefined): boolean {
  if (planned === undefined || expr === undefined) return planned === undefined && expr === undefined;
  if (planned.kind !== 'literal') return true;
  const quoted = /^'((?:[^']|'')*)'(?:::[a-z ]+(?:\[\])?)?$/s.exec(expr);
  const text = quoted ? quoted[1]!.replaceAll("''", "'") : expr;
  const value = planned.value;
  if (typeof value === 'number') return text.trim() !== '' && Number(text) === value;
  if (typeof value === 'boolean') return text === String(value);
  return quoted !== null && text === value;
}
