import { ScopeError, sqlState } from '@bvl/platform';
import { AnswerError, SessionError } from '@bvl/verify-build';

/** One problem of a rejected request: where (a dotted path into the input) and what. */
export interface Problem {
  readonly path: string;
  readonly message: string;
}

/** The body of every error response: a stable code, one readable line, and (for bad input) the list. */
export interface ErrorBody {
  readonly error: ErrorCode;
  readonly message: string;
  readonly problems?: readonly Problem[];
  /** Did-you-mean candidates, best first (an unknown package: the tenant's packages closest to it). */
  readonly suggestions?: readonly string[];
}

/** Error codes of the API, each with its HTTP status. */
export const ERROR_STATUS = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  session_stopped: 409,
  payload_too_large: 413,
  request_timeout: 408,
  unsupported_media_type: 415,
  session_required: 428,
  too_many_requests: 429,
  session_limited: 429,
  database_unavailable: 503,
  timeout: 503,
  internal: 500,
} as const;
export type ErrorCode = keyof typeof ERROR_STATUS;

/** An error the API raises on purpose, with its code (and status), and the headers its answer carries. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly problems?: readonly Problem[],
    readonly extra: { readonly headers?: Readonly<Record<string, string>>; readonly suggestions?: readonly string[] } = {},
  ) {
    super(message);
  }
}

/** A request did not finish within its bound (the database was slow or not answering). */
export class DeadlineError extends Error {
  override readonly name = 'DeadlineError';
}

// Node socket errors that mean "no server there (any more)".
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
// pg's own wording when a connection dies or never comes.
const DRIVER_MESSAGES = [
  /connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /client has encountered a connection error/i,
  /connection (?:is )?closed/i,
  /the database system is (?:starting up|shutting down|in recovery mode)/i,
  /terminating connection due to administrator command/i,
];

/**
 * Whether an error means the database is unreachable or went away (so 503, retry later) rather
 * than a bug or a bad request: socket errors, SQLSTATE class 08 (connection exception), 57P01–03
 * (shutdown, cannot connect now), 53300 (too many connections), and pg's connection messages.
 */
export function isDatabaseUnavailable(e: unknown, depth = 0): boolean {
  if (depth > 4 || e === null || typeof e !== 'object') return false;
  if (e instanceof DeadlineError) return true;
  const code = (e as { code?: unknown }).code;
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  const state = sqlState(e);
  if (state && (state.startsWith('08') || state === '57P01' || state === '57P02' || state === '57P03' || state === '53300')) return true;
  const message = (e as { message?: unknown }).message;
  if (typeof message === 'string' && DRIVER_MESSAGES.some((r) => r.test(message))) return true;
  const errors = (e as { errors?: unknown }).errors;
  const nested = [(e as { cause?: unknown }).cause, ...(Array.isArray(errors) ? errors : [])];
  return nested.some((n) => isDatabaseUnavailable(n, depth + 1));
}

/**
 * The one place a thrown value becomes a response: the caller's mistakes (ApiError, ScopeError,
 * SessionError, AnswerError) with their status; an unreachable database as 503; anything else as 500 (a bug:
 * `cause` is kept for the log, never sent).
 */
export function toErrorResponse(e: unknown): { status: number; body: ErrorBody; cause?: unknown; headers?: Readonly<Record<string, string>> } {
  if (e instanceof ApiError)
    return {
      status: ERROR_STATUS[e.code],
      body: {
        error: e.code,
        message: e.message,
        ...(e.problems ? { problems: e.problems } : {}),
        ...(e.extra.suggestions?.length ? { suggestions: e.extra.suggestions } : {}),
      },
      ...(e.extra.headers ? { headers: e.extra.headers } : {}),
    };
  // SourceError (an unreadable file or folder) is matched by name, as the CLI does.
  if (e instanceof ScopeError || (e as Error | null)?.name === 'SourceError')
    return { status: 400, body: { error: 'invalid_request', message: (e as Error).message } };
  if (e instanceof AnswerError)
    return { status: 400, body: { error: 'invalid_request', message: e.message, ...(e.problems.length ? { problems: e.problems } : {}) } };
  if (e instanceof SessionError && (e.kind === 'required' || e.kind === 'limited' || e.kind === 'forbidden')) {
    const code = e.kind === 'required' ? 'session_required' : e.kind === 'limited' ? 'session_limited' : 'forbidden';
    const wait = e.retryAfterSeconds;
    return { status: ERROR_STATUS[code], body: { error: code, message: e.message }, ...(wait ? { headers: { 'Retry-After': String(wait) } } : {}) };
  }
  if (e instanceof SessionError)
    return e.kind === 'not_found'
      ? { status: 404, body: { error: 'not_found', message: e.message } }
      : e.kind === 'stopped'
        ? { status: 409, body: { error: 'session_stopped', message: e.message } }
        : { status: 400, body: { error: 'invalid_request', message: e.message } };
  if (e instanceof DeadlineError) return { status: 503, body: { error: 'timeout', message: e.message }, cause: e, headers: { 'Retry-After': '5' } };
  if (isDatabaseUnavailable(e))
    return {
      status: 503,
      body: {
        error: 'database_unavailable',
        message: 'the database is unreachable or went away; retry shortly',
      },
      cause: e,
      headers: { 'Retry-After': '5' },
    };
  return { status: 500, body: { error: 'internal', message: 'bvl failed on this request (a bug: the server log has the cause)' }, cause: e };
}

/** A failure's cause for the log: name, message, code and stack; never request data. */
export function describeCause(e: unknown): object {
  if (!(e instanceof Error)) return { value: String(e) };
  return { name: e.name, message: e.message, code: (e as { code?: unknown }).code, stack: e.stack };
}
