import { BVL_COLUMN, BVL_COLUMN_PROBLEM } from '@bvl/metadata';

/** Postgres' identifier limit (NAMEDATALEN - 1); a longer name would be silently truncated. */
export const MAX_IDENTIFIER_LENGTH = 63;

/** Longest tenant id: `t_` + tenant must stay a valid schema name. */
export const MAX_TENANT_LENGTH = 40;

const SNAKE = /^[a-z_][a-z0-9_]*$/;

/**
 * Why `name` cannot be a table, column or schema name here, or undefined when it can. Stricter than
 * Postgres needs (quoted identifiers may hold anything): lowercase snake_case only, so a name means
 * the same quoted or not and no value can smuggle SQL through an identifier.
 */
export function identifierProblem(name: unknown): string | undefined {
  if (typeof name !== 'string') return `is ${name === null ? 'null' : typeof name}, not a string`;
  if (name.length === 0) return 'is empty';
  if (name.length > MAX_IDENTIFIER_LENGTH) return `is ${name.length} characters long; a SQL identifier has at most ${MAX_IDENTIFIER_LENGTH}`;
  if (!SNAKE.test(name)) return 'must be snake_case: lowercase letters, digits and _, not starting with a digit';
  return undefined;
}

/** The names of the columns bvl adds to a tenant's tables for a type change (see shadow-columns.ts); L1 refuses fields so named (FieldName). */
export { BVL_COLUMN };

/**
 * Why `name` cannot be a field's column (see {@link identifierProblem}; also not a name bvl keeps for
 * its own columns), or undefined. buildGraph refused such fields already; this is defence in depth.
 */
export function columnNameProblem(name: unknown): string | undefined {
  return identifierProblem(name) ?? (BVL_COLUMN.test(name as string) ? BVL_COLUMN_PROBLEM : undefined);
}

/** Whether `name` passes {@link identifierProblem}. */
export function isIdentifier(name: unknown): name is string {
  return identifierProblem(name) === undefined;
}

/** A name shown in a message: quoted, and cut short so a 10k-character name cannot flood the output. */
export function showName(name: unknown): string {
  const s = typeof name === 'string' ? name : String(name);
  return JSON.stringify(s.length > 60 ? `${s.slice(0, 57)}…` : s);
}

/** Why `tenant` is not a usable tenant id (its schema is `t_<tenant>`), or undefined. */
export function tenantProblem(tenant: unknown): string | undefined {
  if (typeof tenant !== 'string' || !/^[a-z][a-z0-9_]*$/.test(tenant)) return 'must be lowercase letters, digits and _, starting with a letter';
  if (tenant.length > MAX_TENANT_LENGTH) return `is ${tenant.length} characters long; a tenant id has at most ${MAX_TENANT_LENGTH}`;
  return undefined;
}

/** The Postgres schema holding a tenant's published objects. */
export function tenantSchema(tenant: string): string {
  return `t_${tenant}`;
}

/** Why `pkg` is not a usable package id (stored as a value, never as SQL), or undefined. */
export function packageProblem(pkg: unknown): string | undefined {
  if (typeof pkg !== 'string' || !/^[a-z0-9][a-z0-9_.-]*$/.test(pkg)) return 'must be lowercase letters, digits, _ . -, starting with a letter or digit';
  if (pkg.length > 128) return `is ${pkg.length} characters long; a package id has at most 128`;
  return undefined;
}
