/** Longest database message passed on; a driver can echo whole statements and values. */
export const MAX_DB_MESSAGE = 300;
/** Longest server hint appended to a message. */
const MAX_DB_HINT = 200;

const firstLine = (s: string): string =>
  s
    .split('\n')[0]!
    .replace(/^error:\s*/i, '')
    .trim();
const cut = (s: string, n: number): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/**
 * The database's own one-line message for an error (`invalid input syntax for type numeric: "abc"`,
 * `column "x" does not exist`), without driver noise: no stack, no statement text, no parameters.
 * The server's hint is kept (`out of shared memory (hint: You might need to increase
 * max_locks_per_transaction.)`): it is often the only actionable part; so is the detail of a
 * constraint violation (`Key (code)=(A1) already exists.`), which names the field and value. pg and
 * PGlite both carry them in `message`, `detail` and `hint`; anything else becomes its string form.
 */
export function describeDbError(e: unknown): string {
  const raw = e instanceof Error ? e.message : typeof e === 'string' ? e : String(e);
  let line = cut(firstLine(raw) || 'unknown database error', MAX_DB_MESSAGE);
  const { detail, hint } = (e ?? {}) as { detail?: unknown; hint?: unknown };
  if (sqlState(e)?.startsWith('23') && typeof detail === 'string' && detail.trim()) line += ` (${cut(firstLine(detail), MAX_DB_HINT)})`;
  return typeof hint === 'string' && hint.trim() ? `${line} (hint: ${cut(firstLine(hint), MAX_DB_HINT)})` : line;
}

/** The SQLSTATE of a database error, when the driver gives one. */
export function sqlState(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** Whether an error means this connection is gone (the server ended it, the socket broke), while another may still work. */
export function isConnectionLost(e: unknown): boolean {
  const state = sqlState(e);
  if (state) return /^(08|57P0)/.test(state);
  const message = e instanceof Error ? e.message : String(e);
  return /connection terminated|client has encountered a connection error|not queryable|connection has been discarded|ECONNRESET|EPIPE|socket hang up/i.test(
    message,
  );
}

/**
 * Whether an error means the database as a whole is unusable for this run, not that one statement
 * or value was wrong: the connection is gone (class 08, an admin shutdown or termination), the disk
 * or memory is full (class 53), or the server hit an internal error. A run stops on these instead
 * of failing every remaining record one by one.
 */
export function isDatabaseFailure(e: unknown): boolean {
  const state = sqlState(e);
  if (state) return /^(08|53|57P0|58|XX)/.test(state);
  // No SQLSTATE: the driver's own connection errors ("Connection terminated", a closed client, a socket error).
  const message = e instanceof Error ? e.message : String(e);
  return /connection terminated|client has encountered a connection error|not queryable|connection has been discarded|ECONNRESET|ECONNREFUSED|EPIPE|socket hang up/i.test(
    message,
  );
}
