import type { DatasetNode } from '@bvl/metadata';
import type { DatasetSelection } from '@bvl/render-contract';

/** A probe's answer: a value, or the failure with the database's message (and the statement, when known). */
export type ProbeOutcome<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string; readonly sql?: string };

/** The read a list view's renderer does when it opens: its columns, filter and sort, one row. */
export interface ViewRead {
  readonly columns: readonly string[];
  /** The view's filter as written: `[{field, operator, value}]` rows or a Mongo-style object. */
  readonly filter?: ReadonlyArray<{ field: string; operator?: string | undefined; value?: unknown }> | Readonly<Record<string, unknown>>;
  readonly sort?: ReadonlyArray<{ field: string; order: 'asc' | 'desc' }>;
  readonly limit: number;
}

/** A dataset query that ran: how many rows it returned and the exact SQL. */
export interface DatasetRun {
  readonly rows: number;
  readonly sql: string;
  readonly params?: readonly unknown[];
}

/**
 * The port L3 probes need from a runtime (the platform implements it). Every method is a read;
 * a failure is an outcome, not a throw. `readView` and `runDataset` are optional: a runtime
 * without them makes that plane `unavailable`, reported once.
 */
export interface ProbeEngine {
  countRows(object: string): Promise<ProbeOutcome<number>>;
  readView?(object: string, read: ViewRead): Promise<ProbeOutcome<{ rows: number; sql?: string }>>;
  runDataset?(dataset: DatasetNode, selection: DatasetSelection): Promise<ProbeOutcome<DatasetRun>>;
}
