import { countKeys, scanDuplicateKeys, scanJson } from '@bvl/metadata';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from './app-env.ts';
import { ApiError } from './to-error-response.ts';

/** A JSON pointer as the dotted path the API's problem lists use (`/a/0` → `body.a.0`). */
const dotted = (pointer: string) => ['body', ...pointer.slice(1).split('/')].map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~')).join('.');

/** A body that repeats a key: what to say, and each repeat's place. */
export interface RepeatedKey {
  readonly message: string;
  readonly problems: ReadonlyArray<{ readonly path: string; readonly message: string }>;
}

/**
 * Whether `text` (which parsed into `parsed`) holds a key twice in one object. Decided by counting:
 * the text's members against the parsed keys — equal unless a key was dropped — so a clean body
 * costs a pass over its characters, and only a body that does repeat one pays for the scan that
 * says where. (An at-bound draft of 100,000 fields spent ~0.4 s of the server's only thread in
 * that scan, stalling every other tenant.)
 */
export function repeatedKey(text: string, parsed: unknown): RepeatedKey | undefined {
  if (scanJson(text).keys === countKeys(parsed)) return undefined;
  const { repeats: dups, complete } = scanDuplicateKeys(text);
  if (dups.length === 0 && !complete)
    return {
      message:
        'the body repeats a key (it writes more members than JSON keeps) and nests too deep to say where: JSON keeps only the last value of a repeated key, so the first would be dropped without a word; find the repeat and keep one',
      problems: [],
    };
  if (dups.length === 0) return undefined;
  return {
    message: `the body has the key "${dups[0]!.key}" twice at ${dotted(dups[0]!.pointer)}: JSON keeps only the last value, so the first would be dropped without a word`,
    problems: dups.map((d) => ({
      path: dotted(d.pointer),
      message: `the key "${d.key}" appears again at line ${d.again.line}, column ${d.again.column} (first at line ${d.first.line}, column ${d.first.column}); keep one`,
    })),
  };
}

/**
 * Refuses a JSON body that holds a key twice in one object: JSON.parse keeps the last value and
 * drops the first without a word, so the API would stage something else than was sent. A 400
 * lists every repeat (the same scan `bvl verify` runs on files, packages/metadata findDuplicateKeys).
 *
 * The body is parsed once, here (the route's validator reads this parse).
 */
export const refuseDuplicateKeys: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.header('content-type')?.includes('json') && c.req.header('content-length') !== '0' && c.req.method !== 'GET') {
    const text = await c.req.text();
    let parsed: unknown;
    let valid = true;
    try {
      parsed = JSON.parse(text);
    } catch {
      valid = false; // malformed: the validator answers 400 for it
    }
    if (valid) {
      // The validator's c.req.json() gets this value instead of parsing the text again.
      c.req.json = <T>() => Promise.resolve(parsed as T);
      const repeat = repeatedKey(text, parsed);
      if (repeat) throw new ApiError('invalid_request', repeat.message, repeat.problems.length > 0 ? [...repeat.problems] : undefined);
    }
  }
  await next();
};

/**
 * An MCP request's body, read once and checked for repeated keys like the HTTP API's bodies (a
 * stage_draft's body is a draft): `{ parsedBody }` for the transport, or the JSON-RPC error
 * response the transport would give (HTTP 400; -32700 for text that is not JSON, -32600 Invalid
 * Request naming the repeat, with the request's id when it has one). A request without a JSON body
 * is left to the transport (its own checks answer it).
 */
export async function readMcpBody(c: Context<AppEnv>): Promise<{ readonly parsedBody: unknown } | Response | undefined> {
  if (c.req.method !== 'POST' || !c.req.header('content-type')?.includes('json')) return undefined;
  const text = await c.req.text();
  const error = (code: number, message: string, id: unknown = null, data?: unknown) =>
    c.json({ jsonrpc: '2.0', error: { code, message, ...(data === undefined ? {} : { data }) }, id }, 400);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return error(-32700, 'Parse error: Invalid JSON');
  }
  const repeat = repeatedKey(text, parsed);
  if (repeat) {
    const id = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? ((parsed as { id?: unknown }).id ?? null) : null;
    return error(-32600, `Invalid Request: ${repeat.message}`, id, repeat.problems.length > 0 ? { problems: repeat.problems } : undefined);
  }
  return { parsedBody: parsed };
}
