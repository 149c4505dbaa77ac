import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';

/** A fetch as the `openai` client takes one (its `fetch` option). */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** The format version of a cassette entry. */
export const CASSETTE_VERSION = 1;

/** One recorded exchange: a plain JSON file of a cassette, named `<key>.json`. */
export const CassetteEntrySchema = z.strictObject({
  cassette: z.literal(CASSETTE_VERSION),
  /** sha256 of the request as keyed (see requestKey). */
  key: z.string().regex(/^[0-9a-f]{64}$/, 'must be the sha256 hex of the request'),
  request: z.strictObject({ method: z.string().min(1), path: z.string().min(1), body: z.unknown() }),
  response: z.strictObject({ status: z.int().min(100).max(599), headers: z.record(z.string(), z.string()), body: z.unknown() }),
  recordedAt: z.string().min(1),
});
export type CassetteEntry = z.infer<typeof CassetteEntrySchema>;

/** A cassette directory that cannot be used: missing, unreadable, or holding a malformed file (named). */
export class CassetteError extends Error {
  override readonly name = 'CassetteError';
}

/** Strings in a request that change from run to run and say nothing about what the model is asked. */
const VOLATILE: ReadonlyArray<[RegExp, string]> = [
  [/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<uuid>'],
  [/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?/g, '<time>'],
  [/bvl_eval_\d+_[0-9a-f]{10}/g, '<eval-tenant>'],
  // Wall-clock figures in tool results (a session's elapsed and remaining time): they differ every run.
  [/"(elapsedMs|ms|durationMs)":\d+(\.\d+)?/g, '"$1":"<ms>"'],
];

/** A JSON value with its keys sorted and its volatile strings masked: what a request's key is made of. */
function stable(value: unknown): unknown {
  if (typeof value === 'string') return VOLATILE.reduce((s, [re, mask]) => s.replace(re, mask), value);
  if (Array.isArray(value)) return value.map(stable);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, stable((value as Record<string, unknown>)[k])]),
    );
  return value;
}

/**
 * The operation a request path names, without the endpoint's base: what follows the last `/v1`
 * (`/chat/completions`), so a cassette recorded against one endpoint replays under any base URL.
 */
export function operationOf(pathname: string): string {
  const at = pathname.lastIndexOf('/v1/');
  return at >= 0 ? pathname.slice(at + 3) : pathname;
}

/**
 * The key of a request (pure): sha256 of its method, operation and body as stable JSON — keys
 * sorted, ids, timestamps and eval tenant names masked — so the same question asked in another run
 * finds its answer. The body holds the model, so each model of a matrix has answers of its own.
 */
export function requestKey(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify([method.toUpperCase(), operationOf(path), stable(body)]))
    .digest('hex');
}

/** What a request asked, in a line: the operation, the model and how its last message begins. */
export function describeRequest(path: string, body: unknown): string {
  const b = (body ?? {}) as { model?: unknown; messages?: Array<{ role?: unknown; content?: unknown }> };
  const last = Array.isArray(b.messages) ? b.messages.at(-1) : undefined;
  const said = last ? ` — last message (${String(last.role)}): ${JSON.stringify(String(last.content ?? '').slice(0, 80))}` : '';
  return `${operationOf(path)} for model ${JSON.stringify(b.model ?? '(none)')}${said}`;
}

async function readRequest(input: string | URL | Request, init: RequestInit | undefined): Promise<{ method: string; url: URL; text: string }> {
  if (input instanceof Request) return { method: input.method, url: new URL(input.url), text: await input.clone().text() };
  const body = init?.body;
  const text =
    body === undefined || body === null ? '' : typeof body === 'string' ? body : await new Response(body as ConstructorParameters<typeof Response>[0]).text();
  return { method: init?.method ?? 'GET', url: new URL(String(input)), text };
}

const parseBody = (text: string): unknown => {
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

/** The answer a replay gives a request it has no answer for: an HTTP error the agent does not retry, naming the request. */
const MISS_STATUS = 404;

/** A cassette's fetch for one attempt, and the requests it had no answer for. */
export interface CassetteSession {
  readonly fetch: FetchLike;
  /** Requests a replay had no answer for, described (the attempt is then an `error` naming them). */
  misses(): readonly string[];
}

/** An open cassette: recording (through a real fetch) or replaying, from plain JSON files in `dir`. */
export interface Cassette {
  readonly mode: 'record' | 'replay';
  readonly dir: string;
  /** Exchanges it holds (loaded, or recorded so far). */
  readonly size: () => number;
  /** The models its requests asked for (a replay runs each, unless told otherwise). */
  readonly models: () => string[];
  /** A fetch of its own for one attempt, so the attempt's misses are its own. */
  session(): CassetteSession;
}

/**
 * Opens a cassette. **Replay** reads every `*.json` of `dir` first — a missing directory, an
 * unreadable file or one that is not a cassette entry is a {@link CassetteError} naming the file
 * and what is wrong, before anything runs — and answers each request from the entry of its key
 * (see requestKey), without any endpoint; a request with no entry is answered 404 naming it and
 * counted as the session's miss. **Record** passes each request through `fetch` (the real
 * endpoint) and writes the exchange as `<key>.json` (atomically; an entry already there is kept:
 * the first answer to a question is the one replayed).
 */
export async function openCassette(options: { readonly mode: 'record' | 'replay'; readonly dir: string; readonly fetch?: FetchLike }): Promise<Cassette> {
  const { mode, dir } = options;
  const entries = new Map<string, CassetteEntry>();
  if (mode === 'replay') {
    let files: string[];
    try {
      if (!(await stat(dir)).isDirectory()) throw new CassetteError(`cassette ${dir} is not a directory`);
      files = (await readdir(dir)).filter((f) => f.endsWith('.json')).sort();
    } catch (e) {
      if (e instanceof CassetteError) throw e;
      throw new CassetteError(`cassette ${dir} cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    if (files.length === 0) throw new CassetteError(`cassette ${dir} holds no recorded exchange (no *.json file); record one with --record ${dir}`);
    for (const f of files) {
      const file = join(dir, f);
      let raw: unknown;
      try {
        raw = JSON.parse(await readFile(file, 'utf8'));
      } catch (e) {
        throw new CassetteError(`cassette file ${file} is not JSON: ${(e as Error).message}`);
      }
      const parsed = CassetteEntrySchema.safeParse(raw);
      if (!parsed.success) {
        const first = parsed.error.issues[0]!;
        throw new CassetteError(`cassette file ${file} is not a cassette entry: at /${first.path.join('/')}: ${first.message}`);
      }
      const key = requestKey(parsed.data.request.method, parsed.data.request.path, parsed.data.request.body);
      if (key !== parsed.data.key) throw new CassetteError(`cassette file ${file}: its key does not match its request (was the request edited?)`);
      entries.set(key, parsed.data);
    }
  } else {
    if (!options.fetch) throw new Error('recording a cassette needs the real fetch to pass requests through');
    try {
      await mkdir(dir, { recursive: true });
    } catch (e) {
      throw new CassetteError(`cassette ${dir} cannot be created: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  }
  const real = options.fetch;

  const record = async (key: string, entry: CassetteEntry) => {
    entries.set(key, entries.get(key) ?? entry);
    const file = join(dir, `${key}.json`);
    const exists = await stat(file).then(
      () => true,
      () => false,
    );
    if (exists) return;
    const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
    await writeFile(tmp, `${JSON.stringify(entry, null, 2)}\n`);
    await rename(tmp, file);
  };

  return {
    mode,
    dir,
    size: () => entries.size,
    models: () =>
      [...new Set([...entries.values()].map((e) => (e.request.body as { model?: unknown })?.model).filter((m): m is string => typeof m === 'string'))].sort(),
    session(): CassetteSession {
      const misses: string[] = [];
      const fetch: FetchLike = async (input, init) => {
        const req = await readRequest(input, init);
        const body = parseBody(req.text);
        const key = requestKey(req.method, req.url.pathname, body);
        if (mode === 'replay') {
          const hit = entries.get(key);
          if (!hit) {
            const what = `${describeRequest(req.url.pathname, body)} (key ${key.slice(0, 12)})`;
            misses.push(what);
            const message = `the cassette ${dir} has no answer for ${what}`;
            return new Response(JSON.stringify({ error: { message, type: 'cassette_miss' } }), {
              status: MISS_STATUS,
              headers: { 'content-type': 'application/json' },
            });
          }
          const r = hit.response;
          const text = typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
          return new Response(text, { status: r.status, headers: r.headers });
        }
        const res = await real!(input, init);
        const text = await res.clone().text();
        const headers: Record<string, string> = {};
        for (const h of ['content-type', 'retry-after']) {
          const v = res.headers.get(h);
          if (v !== null) headers[h] = v;
        }
        // Only answers worth replaying: a 5xx or 429 is the endpoint's weather, not the model's answer.
        if (res.status < 500 && res.status !== 429)
          await record(key, {
            cassette: CASSETTE_VERSION,
            key,
            request: { method: req.method.toUpperCase(), path: operationOf(req.url.pathname), body },
            response: { status: res.status, headers, body: parseBody(text) },
            recordedAt: new Date().toISOString(),
          });
        return res;
      };
      return { fetch, misses: () => [...misses] };
    },
  };
}
