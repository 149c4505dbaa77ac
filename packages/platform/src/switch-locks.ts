import { type BuildIssue, makeIssue } from '@bvl/build-issue';
import { conversionOf } from './convert-column.ts';
import type { SchemaStep } from './diff-schema.ts';

/**
 * The server's lock table (issue 21): `max_locks_per_transaction × (max_connections +
 * max_prepared_transactions)` locks for every session together — 6,400 at PostgreSQL's defaults.
 * (PostgreSQL lets a transaction borrow past it from spare shared memory — about 12,700 on a
 * default PostgreSQL 15 — but what it borrows is what every other session on the server would
 * need for its own locks, so bvl plans within the documented size.)
 */
export interface LockTable {
  readonly maxLocksPerTransaction: number;
  readonly maxConnections: number;
  readonly maxPreparedTransactions: number;
  /** The product above: what one transaction may take at most with the server otherwise idle. */
  readonly capacity: number;
}

/**
 * Locks a step of the switch takes, counted generously from what PostgreSQL 15 holds in pg_locks
 * once it ran (its base of 2 aside); `r` is the relations of the table it changes — the table, its
 * indexes, its TOAST table and TOAST index. A type change rewrites the table (a transient copy
 * of it and of each index): 13 + r measured (20 for a key, three indexes and TOAST), counted 2r + 10.
 * A dropped table locks each relation and what points at it: 18 measured for r = 7 with a foreign
 * key pointing at it, 8 for r = 4; counted 2r + 4. A new table with a key, an index and TOAST: 11.
 * NOT NULL set or dropped: 2. A foreign key added or dropped: 7 to 8 (both tables and their keys).
 * An index created or dropped: 3. A column with a volatile default rewrites the table: 20 for r = 7.
 * A shadow column swapped in (the type change built ahead, see shadow-columns.ts): 1, the table's
 * ACCESS EXCLUSIVE lock (two renames).
 */
export function switchLocksOf(step: SchemaStep, relations: (table: string) => number): number {
  const r = relations(step.table);
  switch (step.kind) {
    case 'create_table':
      return 12;
    case 'add_column':
      // A column with a default or NOT NULL may rewrite the table (a volatile default does).
      return step.column.notNull || step.column.default ? 2 * r + 10 : 3;
    case 'alter_column_type':
      return 2 * r + 10;
    case 'swap_shadow_column':
      // Two renames: the table's ACCESS EXCLUSIVE lock, 1 measured; a lossy conversion's row
      // count before it reads the table and its indexes (r).
      return 1 + (conversionOf(step.column, step.from, step.to).lossy ? r : 0);
    case 'add_shadow_column':
      // Built ahead, never in the switch: counted as a type change should it ever run there.
      return 2 * r + 10;
    case 'add_foreign_key':
    case 'drop_foreign_key':
      return 8;
    case 'create_index':
      return 4;
    case 'drop_index':
    case 'set_not_null':
    case 'drop_not_null':
    case 'set_default':
    case 'drop_default':
      return 3;
  }
}

/** Locks dropping a table (a tombstone with dropData) takes. */
export const dropLocksOf = (relations: number): number => 2 * relations + 4;

/** What one publish transaction would change in existing tables, and the locks counted for it. */
export interface SwitchLocks {
  /** Locks counted for the whole transaction (its steps, its drops, and the metadata's own). */
  readonly locks: number;
  /** Existing tables it changes or drops. */
  readonly tables: number;
  /** What it does to them, e.g. `a column type change in 2,000 tables`. */
  readonly what: string[];
}

/** Locks the publish transaction takes besides its DDL: the metadata's tables, indexes and catalogs (59 measured on PostgreSQL 15). */
export const SWITCH_BASE_LOCKS = 100;

const DESCRIBE: Readonly<Record<SchemaStep['kind'] | 'drop_table', string>> = {
  create_table: 'tables created',
  add_column: 'a new column',
  alter_column_type: 'a column type change',
  add_shadow_column: 'a column type change built ahead',
  swap_shadow_column: 'a column type change (built ahead, swapped in)',
  drop_foreign_key: 'a foreign key dropped',
  add_foreign_key: 'a foreign key added',
  create_index: 'a new index',
  drop_index: 'an index dropped',
  set_not_null: 'NOT NULL set',
  drop_not_null: 'NOT NULL dropped',
  set_default: 'a column default set',
  drop_default: 'a column default dropped',
  drop_table: 'a table dropped (dropData)',
};

const count = (n: number): string => n.toLocaleString('en-US');

/**
 * Counts the locks of the publish transaction: every DDL step it runs and every table a tombstone
 * with dropData drops (`relations` answers for a table of the tenant: how many relations it has).
 */
export function countSwitchLocks(steps: readonly SchemaStep[], drops: readonly string[], relations: (table: string) => number): SwitchLocks {
  let locks = SWITCH_BASE_LOCKS;
  const byKind = new Map<string, Set<string>>();
  const touched = new Set<string>();
  const note = (kind: string, table: string) => {
    let s = byKind.get(kind);
    if (!s) byKind.set(kind, (s = new Set()));
    s.add(table);
  };
  const created = new Set(steps.flatMap((s) => (s.kind === 'create_table' ? [s.table] : [])));
  for (const step of steps) {
    locks += switchLocksOf(step, relations);
    if (created.has(step.table)) {
      if (step.kind === 'create_table') note(step.kind, step.table);
      continue;
    }
    note(step.kind, step.table);
    touched.add(step.table);
  }
  for (const table of drops) {
    locks += dropLocksOf(relations(table));
    note('drop_table', table);
    touched.add(table);
  }
  const tablesOf = (n: number) => `${count(n)} table${n === 1 ? '' : 's'}`;
  const what = [...byKind]
    .sort((a, b) => b[1].size - a[1].size)
    .map(([kind, tables]) =>
      kind === 'create_table' ? `${tablesOf(tables.size)} created` : `${DESCRIBE[kind as keyof typeof DESCRIBE]} in ${tablesOf(tables.size)}`,
    );
  return { locks, tables: touched.size, what };
}

/**
 * The refusal of a publish whose switch cannot fit the server's lock table, or undefined when it
 * fits. Says what the switch changes, the locks counted, the table's size and settings, how many
 * of these objects one publish can change, and the setting that would fit the whole change.
 */
export function lockTableIssue(pkg: string, counted: SwitchLocks, table: LockTable): BuildIssue | undefined {
  if (counted.locks <= table.capacity) return undefined;
  const perTable = Math.max(1, (counted.locks - SWITCH_BASE_LOCKS) / Math.max(1, counted.tables));
  const fit = Math.max(1, Math.floor((table.capacity - SWITCH_BASE_LOCKS) / perTable));
  const sessions = table.maxConnections + table.maxPreparedTransactions;
  const needed = Math.ceil(counted.locks / sessions);
  const settings = `max_locks_per_transaction ${table.maxLocksPerTransaction} × (max_connections ${table.maxConnections} + max_prepared_transactions ${table.maxPreparedTransactions})`;
  return makeIssue({
    code: 'publish_exceeds_lock_table',
    artifact: { type: 'package', name: pkg },
    message: `Publishing package "${pkg}" changes ${count(counted.tables)} existing table${counted.tables === 1 ? '' : 's'} in its one switching transaction (${counted.what.join(', ')}), which takes about ${count(counted.locks)} locks until it commits; the database server's lock table holds ${count(table.capacity)} (${settings}) for all its sessions together. bvl refused the publish before changing anything: run anyway, it would fail with "out of shared memory" and publish nothing.`,
    fix: `Publish the change in parts — about ${count(fit)} of these tables per publish fit (stage the changed objects in groups, publish each) — or raise max_locks_per_transaction to at least ${count(needed)} in postgresql.conf (it takes a server restart).`,
  });
}
