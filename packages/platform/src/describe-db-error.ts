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
  // A socket that broke under the driver is the same event, whether it was reading (pg: "Connection
  // terminated unexpectedly") or writing — a COPY streaming rows — when the server ended the session:
  // one wording for it, whichever side noticed first.
  if (sqlState(e) === undefined && /^(read|write) (ECONNRESET|EPIPE)$|^socket hang up$/i.test(raw.trim())) return 'Connection terminated unexpectedly';
  let line = cut(firstLine(raw) || 'unknown database error', MAX_DB_MESSAGE);
  const { detail, hint } = (e ?? {}) as { detail?: unknown; hint?: unknown };
  if (sqlState(e)?.startsWith('23') && typeof detail === 'string' && detail.trim()) line += ` (${cut(firstLine(detail), MAX_DB_HINT)})`;
  return typeof hint === 'string' && hint.trim() ? `${line} (hint: ${cut(firstLine(hint), MAX_DB_HINT)})` : line;
}

/** The SQLSTATE of a database error, when the driver gives one. */
export function sqlState(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  // No SQLSTATE class begins with E; Node's socket errors do (EPIPE is five letters too).
  return typeof code === 'string' && /^[0-9A-DF-Z][0-9A-Z]{4}$/.test(code) ? code : undefined;
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

/** The first error in a chain (`cause`, AggregateError's `errors`) that `test` accepts. */
function findIn(e: unknown, test: (x: { code?: unknown; message?: unknown }) => boolean, depth = 0): { code?: unknown; message?: unknown } | undefined {
  if (depth > 5 || e === null || typeof e !== 'object') return undefined;
  const x = e as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (test(x)) return x;
  for (const n of [x.cause, ...(Array.isArray(x.errors) ? x.errors : [])]) {
    const found = findIn(n, test, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/**
 * Why PostgreSQL at `url` could not be opened, as one line naming what to fix in DATABASE_URL (the
 * host, port, user, password or database name), instead of the driver's words: the URL is not a
 * PostgreSQL URL, the host is unknown, nothing listens there, it does not answer, the user or
 * password is refused, the database does not exist. Anything else: the database's own message.
 */
export function describeConnectError(e: unknown, url: string): string {
  let u: URL | undefined;
  try {
    u = new URL(url);
  } catch {
    // Not parsed: described below.
  }
  if (!u || !/^postgres(?:ql)?:$/.test(u.protocol) || !u.hostname)
    return 'DATABASE_URL is not a PostgreSQL URL: write it as postgres://user:password@host:5432/database';
  const host = u.hostname;
  const where = `${host}:${u.port || '5432'}`;
  const user = decodeURIComponent(u.username) || '(the default user)';
  const database = decodeURIComponent(u.pathname.replace(/^\//, '')) || user;
  const code = (c: string) => findIn(e, (x) => x.code === c) !== undefined;
  const said = (r: RegExp) => findIn(e, (x) => typeof x.message === 'string' && r.test(x.message)) !== undefined;
  if (code('ENOTFOUND') || code('EAI_AGAIN')) return `host "${host}" was not found (its name does not resolve): fix the host in DATABASE_URL`;
  if (code('ECONNREFUSED')) return `nothing accepts connections at ${where}: start PostgreSQL there, or fix the host and port in DATABASE_URL`;
  if (code('ETIMEDOUT') || code('EHOSTUNREACH') || code('ENETUNREACH') || said(/timeout exceeded when trying to connect/i))
    return `${where} did not answer: check the host and port in DATABASE_URL (and that a firewall lets it through)`;
  if (code('28P01')) return `PostgreSQL at ${where} refused the password of user "${user}": fix the user or password in DATABASE_URL`;
  if (code('28000')) {
    const why = findIn(e, (x) => x.code === '28000')?.message;
    return `PostgreSQL at ${where} refused user "${user}" (${typeof why === 'string' ? firstLine(why) : 'not allowed'}): fix the user in DATABASE_URL, or let it in (create the role, pg_hba.conf)`;
  }
  if (code('3D000'))
    return `database "${database}" does not exist at ${where}: create it (createdb -h ${host} -U ${user} ${database}) or fix the database name at the end of DATABASE_URL`;
  if (code('57P03') || said(/the database system is (?:starting up|shutting down|in recovery mode)/i))
    return `PostgreSQL at ${where} is starting up or shutting down: retry in a moment`;
  if (code('53300')) return `PostgreSQL at ${where} has no connection left for bvl (too many clients): close some, or raise max_connections`;
  if (code('42501'))
    return `user "${user}" may not create bvl's schema in database "${database}" at ${where}: grant it CREATE on the database, or use another user`;
  const inner = findIn(e, (x) => typeof x.code === 'string') ?? e;
  return describeDbError(inner);
}
