/** Longest database message passed on; a driver can echo whole statements and values. */
export const MAX_DB_MESSAGE = 300;

/**
 * The database's own one-line message for an error (`invalid input syntax for type numeric: "abc"`,
 * `column "x" does not exist`), without driver noise: no stack, no statement text, no parameters.
 * pg and PGlite both carry it in `message`; anything else becomes its string form.
 */
export function describeDbError(e: unknown): string {
  const raw = e instanceof Error ? e.message : typeof e === 'string' ? e : String(e);
  const line =
    raw
      .split('\n')[0]!
      .replace(/^error:\s*/i, '')
      .trim() || 'unknown database error';
  return line.length > MAX_DB_MESSAGE ? `${line.slice(0, MAX_DB_MESSAGE - 1)}…` : line;
}

/** The SQLSTATE of a database error, when the driver gives one. */
export function sqlState(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}
