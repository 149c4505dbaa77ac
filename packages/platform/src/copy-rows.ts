import type { PGlite } from '@electric-sql/pglite';
import { CompiledQuery, type Kysely } from 'kysely';
import type pg from 'pg';
import type { EngineKind } from './database.ts';

/**
 * Rows for one `COPY … FROM` in PostgreSQL's text format, carried as the single parameter of the
 * statement: the engine's connection (see {@link enableCopyOnPg}, {@link enableCopyOnPglite})
 * recognises it and streams it to the server instead of binding it.
 */
export class CopyData {
  constructor(readonly bytes: Uint8Array) {}
}

const COPY_STATEMENT = /^\s*copy\s/i;
const isCopy = (text: unknown, values: unknown): values is [CopyData] =>
  typeof text === 'string' && COPY_STATEMENT.test(text) && Array.isArray(values) && values.length === 1 && values[0] instanceof CopyData;

/** What a COPY answers, shaped as pg's query result; the count of rows copied is its one row (kysely counts affected rows of DML only). */
interface CopyResult {
  command: string;
  rowCount: number;
  rows: Array<{ copied: number }>;
}

/** The pieces of pg's connection a COPY FROM STDIN drives (pg ≥ 8: the protocol's CopyData / CopyDone). */
interface PgConnection {
  query(text: string): void;
  sendCopyFromChunk(chunk: Uint8Array): void;
  endCopyFrom(): void;
  sendCopyFail(message: string): void;
}

/**
 * A `COPY … FROM STDIN` as a pg submittable: sent by the simple query protocol; when the server
 * asks for the data (CopyInResponse) the bytes go as one CopyData and CopyDone. The callback gets
 * the row count (CommandComplete `COPY n`) at ReadyForQuery, or the first error.
 */
class CopyFromStdin {
  callback: ((err: Error | null, result?: CopyResult) => void) | undefined;
  #error: Error | undefined;
  #rows = 0;
  #done = false;
  constructor(
    readonly text: string,
    readonly data: CopyData,
  ) {}
  #finish(err: Error | undefined): void {
    if (this.#done) return;
    this.#done = true;
    if (err) this.callback?.(err);
    else this.callback?.(null, { command: 'COPY', rowCount: this.#rows, rows: [{ copied: this.#rows }] });
  }
  submit(connection: PgConnection): void {
    connection.query(this.text);
  }
  handleCopyInResponse(connection: PgConnection): void {
    if (this.data.bytes.length > 0) connection.sendCopyFromChunk(this.data.bytes);
    connection.endCopyFrom();
  }
  handleCommandComplete(msg: { text?: string }): void {
    const n = /^COPY (\d+)/.exec(msg.text ?? '')?.[1];
    if (n !== undefined) this.#rows = Number(n);
  }
  handleError(err: Error): void {
    // The server answers an error with ReadyForQuery; a lost connection does not: finish now either way.
    this.#error ??= err;
    this.#finish(this.#error);
  }
  handleReadyForQuery(): void {
    this.#finish(this.#error);
  }
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyData(): void {}
}

const PATCHED = Symbol('bvl.copy');

/**
 * Teaches one pg client `COPY … FROM STDIN` with a {@link CopyData} parameter (kysely sends every
 * statement as `client.query(text, values)`). Other statements pass through untouched.
 */
export function enableCopyOnPg(client: pg.PoolClient | pg.Client): void {
  const c = client as unknown as Record<PropertyKey, unknown> & { query: (...args: unknown[]) => unknown };
  if (c[PATCHED]) return;
  const query = c.query.bind(client);
  c[PATCHED] = true;
  c.query = (text: unknown, values?: unknown, callback?: unknown) => {
    if (!isCopy(text, values)) return query(text, values, callback);
    const copy = new CopyFromStdin(text as string, values[0]);
    return new Promise<CopyResult>((resolve, reject) => {
      copy.callback = (err, result) => (err ? reject(err) : resolve(result!));
      query(copy);
    });
  };
}

/** The part of PGlite kysely's dialect calls. */
type LiteQuery = Pick<PGlite, 'query' | 'close'>;

/**
 * PGlite with `COPY … FROM '/dev/blob'` for a {@link CopyData} parameter: the bytes become the
 * statement's blob. Other statements pass through untouched.
 */
export function enableCopyOnPglite(lite: LiteQuery): LiteQuery {
  return {
    query: ((text: string, values?: unknown[], options?: Parameters<PGlite['query']>[2]) => {
      if (!isCopy(text, values)) return lite.query(text, values, options);
      return lite
        .query(text, [], { ...options, blob: new Blob([values[0].bytes as Uint8Array<ArrayBuffer>]) })
        .then((r) => ({ ...r, rows: [{ copied: r.affectedRows ?? 0 }] }));
    }) as PGlite['query'],
    close: () => lite.close(),
  };
}

/** `"a""b"`: an identifier quoted for SQL text. */
const quoteId = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/**
 * Copies rows (already in COPY text format) into `schema.table (columns)`: FROM STDIN on
 * PostgreSQL, FROM '/dev/blob' on PGlite. Returns the rows the server says it copied.
 */
export async function copyRows<DB>(
  db: Kysely<DB>,
  engine: EngineKind,
  schema: string,
  table: string,
  columns: readonly string[],
  data: CopyData,
): Promise<number> {
  const target = `${quoteId(schema)}.${quoteId(table)} (${columns.map(quoteId).join(', ')})`;
  const source = engine === 'postgres' ? 'stdin' : `'/dev/blob'`;
  const r = await db.executeQuery(CompiledQuery.raw(`copy ${target} from ${source}`, [data]) as CompiledQuery<{ copied: number }>);
  return Number(r.rows[0]?.copied ?? 0);
}

/** One value in COPY's text format: `\N` for null, backslash, newline, carriage return and tab escaped. */
export function copyField(text: string | null): string {
  if (text === null) return '\\N';
  return /[\\\n\r\t]/.test(text) ? text.replace(/[\\\n\r\t]/g, (c) => (c === '\\' ? '\\\\' : c === '\n' ? '\\n' : c === '\r' ? '\\r' : '\\t')) : text;
}

/** A lone surrogate (not UTF-16 text) or NUL: jsonb refuses both, so such a list is left to jsonb. */
const ILL_FORMED = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * A JavaScript list as a PostgreSQL array literal (`{"a","b",NULL}`), each element quoted so the
 * element type's input function reads exactly its text; undefined for a list whose elements would
 * not read the same as through jsonb_array_elements_text (objects, nested lists, lone surrogates,
 * NUL), which the caller writes the other way.
 */
export function arrayLiteral(items: readonly unknown[]): string | undefined {
  let out = '{';
  for (let i = 0; i < items.length; i++) {
    const v = items[i];
    let text: string;
    if (v === null || v === undefined) {
      out += i === 0 ? 'NULL' : ',NULL';
      continue;
    }
    if (typeof v === 'string') {
      if (ILL_FORMED.test(v) || v.includes('\u0000')) return undefined;
      text = v;
    } else if (typeof v === 'boolean') text = String(v);
    else if (typeof v === 'number' && Number.isFinite(v)) text = String(v);
    else return undefined;
    out += `${i === 0 ? '' : ','}"${/["\\]/.test(text) ? text.replace(/["\\]/g, '\\$&') : text}"`;
  }
  return `${out}}`;
}
