import { createHash } from 'node:crypto';
import { type BuildIssue, makeIssue } from '@bvl/build-issue';
import { BVL_COLUMN_FIX, type FieldDef, type Graph, type ObjectNode, pointer, RELATION_TYPES, referenceOf, SYSTEM_FIELDS } from '@bvl/metadata';
import { type ColumnType, columnTypeOf } from './column-type.ts';
import { BVL_COLUMN, columnNameProblem, identifierProblem, showName } from './identifier.ts';

/** What a foreign key does when its target row is deleted (the field's `deleteBehavior`). */
export type OnDelete = 'set null' | 'cascade' | 'restrict';

/** A lookup column's reference to its target table's `id`. */
export interface ForeignKeyPlan {
  readonly table: string;
  readonly onDelete: OnDelete;
}

/** A column default: the row id generator, the clock, or a literal from the field's defaultValue. */
export type ColumnDefault = { readonly kind: 'uuid' } | { readonly kind: 'now' } | { readonly kind: 'literal'; readonly value: string | number | boolean };

/** One column of a planned table. */
export interface ColumnPlan {
  readonly name: string;
  readonly type: ColumnType;
  readonly origin: 'id' | 'system' | 'field';
  readonly default?: ColumnDefault | undefined;
  readonly references?: ForeignKeyPlan | undefined;
  /** NOT NULL: the field declares `storage: { notNull: true }` (ADR-0113: `required` alone is a write contract). */
  readonly notNull?: boolean | undefined;
}

/**
 * A planned index, named deterministically: `ix_…` (lookups and seed keys) or `uq_…` (a field's
 * `unique`). Columns in `nullSafe` are indexed as `coalesce(col, '')`, so rows with no organization
 * still share one namespace (ObjectStack's per-organization unique).
 */
export interface IndexPlan {
  readonly name: string;
  readonly columns: readonly string[];
  readonly unique?: boolean | undefined;
  readonly nullSafe?: readonly string[] | undefined;
}

/** The table an object becomes. */
export interface TablePlan {
  readonly name: string;
  readonly platform: boolean;
  readonly columns: readonly ColumnPlan[];
  readonly indexes: readonly IndexPlan[];
}

/** Result of {@link planTables}: the tables, or the issues that refuse the publish before any SQL runs. */
export interface TablesPlan {
  readonly tables: TablePlan[];
  readonly issues: BuildIssue[];
}

/** Longest string default written into DDL; a longer one is left to the application. */
export const MAX_LITERAL_DEFAULT = 1000;

const ON_DELETE: Readonly<Record<string, OnDelete>> = { set_null: 'set null', cascade: 'cascade', restrict: 'restrict' };
const TOKEN = /^\$?\{.*\}$|^(now|today|current_user|current_user_id|me)(\(\))?$/i;

/** A short deterministic constraint/index name: `<prefix>_<hash of the parts>` (always a valid identifier). */
export function derivedName(prefix: 'fk' | 'ix' | 'uq' | 'ck', ...parts: string[]): string {
  return `${prefix}_${createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 24)}`;
}

/**
 * Plans one table per object of the graph (declared and platform objects): `id` (text primary key,
 * a generated uuid by default), the system columns every object has unless it declares a field of
 * that name, then a column per declared field. Lookups reference the target's `id` (not `multiple`
 * ones: an array cannot be a foreign key). Every object and field name is checked as a SQL
 * identifier here; a bad one is an `invalid_artifact` issue and nothing is planned for it.
 */
export function planTables(graph: Graph): TablesPlan {
  const tables: TablePlan[] = [];
  const issues: BuildIssue[] = [];
  const keyColumns = seedKeyColumns(graph);
  for (const object of graph.objects.values()) {
    // An object whose body fails its schema is not planned at all (buildGraph already reported it).
    if (object.invalid) continue;
    const problem = identifierProblem(object.name);
    if (problem) {
      issues.push(
        makeIssue({
          code: 'invalid_artifact',
          artifact: { type: 'object', name: object.name },
          message: `Object ${showName(object.name)} cannot become a table: its name ${problem}. bvl refused the publish before running any SQL.`,
          fix: 'Rename the object to snake_case (a-z, 0-9, _), at most 63 characters.',
          path: '/name',
          draft: object.draft,
        }),
      );
      continue;
    }
    const plan = planTable(object, graph, keyColumns.get(object.name) ?? [], issues);
    if (plan) tables.push(plan);
  }
  return { tables, issues };
}

function planTable(object: ObjectNode, graph: Graph, keys: readonly string[][], issues: BuildIssue[]): TablePlan | undefined {
  const columns: ColumnPlan[] = [{ name: 'id', type: { base: 'text', array: false }, origin: 'id', default: { kind: 'uuid' } }];
  const before = issues.length;
  for (const [name, def] of Object.entries(SYSTEM_FIELDS)) {
    if (name === 'id' || object.fields.has(name)) continue;
    columns.push({ name, type: columnTypeOf(def), origin: 'system', default: systemDefault(name) });
  }
  for (const field of object.fields.values()) {
    const problem = columnNameProblem(field.name);
    if (problem) {
      issues.push(
        makeIssue({
          code: 'invalid_artifact',
          artifact: { type: 'object', name: object.name },
          ref: { type: 'object', name: object.name, member: field.name },
          message: `Field ${showName(field.name)} of object "${object.name}" cannot become a column: its name ${problem}. bvl refused the publish before running any SQL.`,
          fix: BVL_COLUMN.test(field.name) ? BVL_COLUMN_FIX : `Rename the field to snake_case (a-z, 0-9, _), at most 63 characters.`,
          path: pointer('fields', field.name),
          draft: object.draft,
        }),
      );
      continue;
    }
    if (field.name === 'id' || field.invalid) continue;
    columns.push({
      name: field.name,
      type: columnTypeOf(field.def),
      origin: 'field',
      default: literalDefault(field.def),
      references: foreignKey(field.def, graph),
      ...(storageNotNull(field.def) ? { notNull: true } : {}),
    });
  }
  if (issues.length > before) return undefined;
  const names = new Set(columns.map((c) => c.name));
  const indexed = new Map<string, string[]>();
  const addIndex = (cols: string[]) => {
    if (cols.length === 0 || !cols.every((c) => names.has(c) && c !== 'id')) return;
    indexed.set(cols.join(','), cols);
  };
  // Seeds upsert by their externalId and lookups resolve by natural key: index what they search.
  for (const k of keys) addIndex(k);
  if (names.has('name')) addIndex(['name']);
  for (const field of object.fields.values()) if (field.def.externalId === true && uniqueScope(field.def) === undefined) addIndex([field.name]);
  const indexes: IndexPlan[] = [...indexed.values()].map((cols) => ({ name: derivedName('ix', object.name, ...cols), columns: cols }));
  // `unique` is a unique index, as ObjectStack builds it: per tenant (here: the tenant's schema), or
  // per organization inside it for `unique: "organization"`.
  for (const field of object.fields.values()) {
    const scope = uniqueScope(field.def);
    if (scope === undefined || field.invalid || field.name === 'id' || !names.has(field.name)) continue;
    const perOrg = scope === 'organization' && field.name !== 'organization_id' && names.has('organization_id');
    const cols = perOrg ? ['organization_id', field.name] : [field.name];
    indexes.push({ name: derivedName('uq', object.name, ...cols), columns: cols, unique: true, ...(perOrg ? { nullSafe: ['organization_id'] } : {}) });
  }
  return { name: object.name, platform: object.platform, columns, indexes };
}

/** A field's `unique` scope: `global` (`true` / `"global"`), `organization`, or undefined when not unique. */
export function uniqueScope(def: FieldDef): 'global' | 'organization' | undefined {
  const u = def.unique;
  return u === true || u === 'global' ? 'global' : u === 'organization' ? 'organization' : undefined;
}

/** Whether the field asks for a NOT NULL column (`storage: { notNull: true }`, ADR-0113). */
export function storageNotNull(def: FieldDef): boolean {
  const storage = def.storage;
  return typeof storage === 'object' && storage !== null && (storage as { notNull?: unknown }).notNull === true;
}

function systemDefault(name: string): ColumnDefault | undefined {
  if (name === 'created_at' || name === 'updated_at') return { kind: 'now' };
  if (name === 'is_deleted') return { kind: 'literal', value: false };
  return undefined;
}

function foreignKey(def: FieldDef, graph: Graph): ForeignKeyPlan | undefined {
  if (!RELATION_TYPES.has(def.type) || def.multiple) return undefined;
  const target = referenceOf(def);
  // A dangling reference is an L1 issue; the column still exists, without a constraint.
  if (!target || !graph.objects.has(target) || identifierProblem(target)) return undefined;
  const behaviour = typeof def.deleteBehavior === 'string' ? ON_DELETE[def.deleteBehavior] : undefined;
  return { table: target, onDelete: behaviour ?? 'set null' };
}

/** A literal default the DDL can carry safely: finite numbers, booleans, plain strings of text/select fields. */
function literalDefault(def: FieldDef): ColumnDefault | undefined {
  const type = columnTypeOf(def);
  if (type.array || RELATION_TYPES.has(def.type)) return undefined;
  let value = def.defaultValue;
  if (value === undefined && Array.isArray(def.options)) {
    const flagged = def.options.find((o) => typeof o === 'object' && o !== null && (o as { default?: unknown }).default === true);
    if (flagged && typeof flagged === 'object') value = flagged.value;
  }
  if ((type.base === 'numeric' || type.base === 'double precision') && typeof value === 'number' && Number.isFinite(value)) return { kind: 'literal', value };
  if (type.base === 'boolean' && typeof value === 'boolean') return { kind: 'literal', value };
  // Placeholders ({today}, current_user) are resolved by the app at write time, not by a column default.
  if (type.base === 'text' && typeof value === 'string' && value.length <= MAX_LITERAL_DEFAULT && !TOKEN.test(value)) return { kind: 'literal', value };
  return undefined;
}

/** Per object, the externalId column lists of its seeds. */
function seedKeyColumns(graph: Graph): Map<string, string[][]> {
  const out = new Map<string, string[][]>();
  for (const seed of graph.seeds.values()) {
    const list = out.get(seed.object) ?? [];
    list.push([...seed.externalId]);
    out.set(seed.object, list);
  }
  return out;
}
