import type { RawBuilder } from 'kysely';

/**
 * SQL that is built only when a query is emitted. Planning a dataset resolves and checks every name
 * and reports every problem at once, but L2 only checks: it never emits. Building kysely nodes (each
 * one allocated and frozen) for queries nobody runs was half of planning's time on large stacks, so
 * the planners hand out these thunks and `emitSql` calls them. A thunk is pure: calling it twice
 * builds the same SQL.
 */
export type DeferredSql<T = unknown> = () => RawBuilder<T>;

/** A deferred fragment built at most once (a measure that several derived measures reuse). */
export function once<T>(build: DeferredSql<T>): DeferredSql<T> {
  let built: RawBuilder<T> | undefined;
  return () => (built ??= build());
}
