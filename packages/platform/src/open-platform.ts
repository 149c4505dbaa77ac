import { existsSync, statfsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import pg from 'pg';
import { enableCopyOnPg, enableCopyOnPglite } from './copy-rows.ts';
import type { BvlDatabase, DynamicDatabase, PlatformContext } from './database.ts';
import { describeConnectError, isConnectionLost } from './describe-db-error.ts';
import { lockDataDir } from './lock-data-dir.ts';
import { migrateToLatest } from './run-migrations.ts';
import { pgliteReadOnly, type ReadOnlySessions, readOnlySessionOptions } from './run-read-only.ts';

export { DATA_DIR_LOCK } from './lock-data-dir.ts';

/** Where the platform's database is. */
export interface PlatformOptions {
  /** `postgres://…`: PostgreSQL over `pg`. Takes precedence over `dataDir`. */
  readonly databaseUrl?: string | undefined;
  /** Embedded PGlite: a data folder, or `'memory'` (tests). Default `.bvl/data` under the process cwd. */
  readonly dataDir?: string | 'memory' | undefined;
  /** A PGlite data-dir dump to start from (tests start from one migrated dump). */
  readonly loadDataDir?: Blob | undefined;
  /**
   * A dump of a freshly initialized PGlite data dir, used only when `dataDir` holds no database yet:
   * starting from it skips PGlite's initdb, which takes seconds and most of a new folder's peak memory.
   */
  readonly newDataDirTemplate?: Blob | undefined;
  /** The clock (default: the system clock). */
  readonly now?: (() => Date) | undefined;
  /** Pool size for PostgreSQL; probes run at most this many queries at once. */
  readonly maxConnections?: number | undefined;
  /** Told when a slow step starts (PGlite's start takes seconds on a new folder), so a CLI can show it. */
  readonly onProgress?: ((step: 'connect' | 'start' | 'migrate') => void) | undefined;
  /** Free bytes PGlite's disk must keep (default {@link PGLITE_DISK_RESERVE}); below it every write is refused. */
  readonly diskReserve?: number | undefined;
  /**
   * PostgreSQL: the longest any statement waits for a lock (a session `lock_timeout`), so a table
   * or package another session holds costs a bounded wait (SQLSTATE 55P03 past it). Default: none
   * (the service bounds its requests itself; the CLI passes BVL_LOCK_WAIT_MS).
   */
  readonly lockWaitMs?: number | undefined;
  /** PostgreSQL: the `application_name` of the pool's sessions (a lock-wait watcher finds them by it). */
  readonly applicationName?: string | undefined;
}

/** An open platform: the context every platform function takes, plus `close`. */
export interface Platform extends PlatformContext {
  /** The location, for messages: the URL without credentials, or the PGlite data folder. */
  readonly location: string;
  /** The engine's read-only probe path (see run-read-only): read-only sessions on PostgreSQL, one exclusive call on PGlite. */
  readonly readOnly?: ReadOnlySessions;
  close(): Promise<void>;
}

const LITE = Symbol('pglite');

/** Where a new PGlite data folder's template comes from when openPlatform's options give none (see {@link setNewDataDirTemplate}). */
let templateOfNewDataDir: (() => Promise<Blob | undefined>) | undefined;

/**
 * Names the template every openPlatform of this process starts a new PGlite data folder from when
 * its options give none (`newDataDirTemplate` wins): a dump of a freshly initialized data dir, which
 * skips PGlite's initdb (seconds of CPU and most of a new folder's peak memory). `load` runs only
 * when a folder is new. The CLI names the one its build ships, for every command that opens the
 * embedded database; `undefined` forgets it.
 */
export function setNewDataDirTemplate(load: (() => Promise<Blob | undefined>) | undefined): void {
  templateOfNewDataDir = load;
}

/**
 * Free space PGlite's data folder must keep. PGlite cannot survive a full disk: when the
 * write-ahead log cannot grow it stops responding, at full CPU, with the event loop blocked, so no
 * timeout can interrupt it. bvl therefore checks the disk before each statement that writes and
 * refuses it below this reserve (a 16 MB WAL segment and a large statement fit in it), with one
 * clear error (SQLSTATE 53100, as PostgreSQL's own disk-full error). Reads still run.
 */
export const PGLITE_DISK_RESERVE = 64 * 1024 * 1024;
/** Room a new PGlite data folder takes on its first open (initdb). */
const PGLITE_INIT_BYTES = 80 * 1024 * 1024;

/** Free bytes on the disk holding `dir`, or undefined when the system cannot say. */
function freeBytes(dir: string): number | undefined {
  try {
    const s = statfsSync(dir);
    return s.bavail * s.bsize;
  } catch {
    return undefined;
  }
}

const mb = (n: number): string => `${Math.floor(n / (1024 * 1024))} MB`;

/** The disk-full refusal: a database error with PostgreSQL's disk_full SQLSTATE. */
function diskFull(dir: string, free: number, reserve: number): Error {
  return Object.assign(
    new Error(
      `PGlite at ${dir}: its disk has ${mb(free)} free, under the ${mb(reserve)} bvl keeps free (PGlite stops responding on a full disk); free disk space, or set DATABASE_URL to use PostgreSQL`,
    ),
    { code: '53100' },
  );
}

/** Statements that read or end work (they run on a full disk too): reads, transaction control (a commit writes one small record), settings. */
const NOT_WRITING = /^\s*(select|show|explain|begin|start transaction|savepoint|release|rollback|commit|set|reset)\b/i;

/** PGlite behind a check of its disk before every statement (see {@link PGLITE_DISK_RESERVE}). */
function guardDisk(lite: PGlite, dir: string, reserve: number): PGlite {
  return {
    query: (text: string, params?: unknown[], options?: Parameters<PGlite['query']>[2]) => {
      if (!NOT_WRITING.test(text)) {
        const free = freeBytes(dir);
        if (free !== undefined && free < reserve) return Promise.reject(diskFull(dir, free, reserve));
      }
      return lite.query(text, params, options);
    },
    close: () => lite.close(),
  } as unknown as PGlite;
}

/**
 * Default connection pool size on PostgreSQL (per process; `BVL_POOL_SIZE` sets it). The probes'
 * read-only pools are the same size each and open only while probes run.
 */
export const DEFAULT_MAX_CONNECTIONS = 8;
/** The environment variable that sizes the PostgreSQL pool. */
export const POOL_SIZE_ENV = 'BVL_POOL_SIZE';
/** Distinct statement timeouts that get a read-only pool of their own; other timeouts take the transactional path. */
export const MAX_READ_ONLY_POOLS = 4;

/** The environment variable that moves the embedded database's folder (the `--data-dir` flag wins over it). */
export const DATA_DIR_ENV = 'BVL_DATA_DIR';

/**
 * The options `bvl` derives from its environment: DATABASE_URL (pool size from $BVL_POOL_SIZE), else
 * PGlite in `dataDir` (a flag), else in $BVL_DATA_DIR, else in `<cwd>/.bvl/data` — relative folders
 * against `cwd`. A BVL_POOL_SIZE that is not a whole number from 1 to 1000 is an error.
 */
export function platformOptionsFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
  dataDir?: string,
): PlatformOptions & { dataDir?: string } {
  const url = env.DATABASE_URL?.trim();
  if (url) {
    const raw = env[POOL_SIZE_ENV]?.trim();
    if (!raw) return { databaseUrl: url };
    const size = Number(raw);
    if (!Number.isInteger(size) || size < 1 || size > 1000)
      throw new Error(`${POOL_SIZE_ENV} must be a whole number from 1 to 1000 (got ${JSON.stringify(raw.slice(0, 40))})`);
    return { databaseUrl: url, maxConnections: size };
  }
  const dir = dataDir?.trim() || env[DATA_DIR_ENV]?.trim();
  return { dataDir: dir ? resolve(cwd, dir) : join(cwd, '.bvl', 'data') };
}

/**
 * The composition root of the platform: opens PostgreSQL (when `databaseUrl` is given) or embedded
 * PGlite, runs the `bvl` migrations, and returns the context. The same kysely code runs above
 * either dialect. Throws when the database cannot be reached or migrated.
 */
export async function openPlatform(options: PlatformOptions = {}): Promise<Platform> {
  const now = options.now ?? (() => new Date());
  if (options.databaseUrl) {
    const url = options.databaseUrl;
    // A URL that is not PostgreSQL's is refused before any connection is tried.
    const malformed = describeConnectError(undefined, url);
    if (malformed.startsWith('DATABASE_URL is not')) throw new Error(`cannot open PostgreSQL: ${malformed}`);
    const max = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
    const session = {
      extra: options.lockWaitMs !== undefined ? `-c lock_timeout=${Math.max(1, Math.floor(options.lockWaitMs))}` : '',
      applicationName: options.applicationName,
    };
    const db = new Kysely<BvlDatabase>({ dialect: new PostgresDialect({ pool: postgresPool(url, max, session.extra, session.applicationName) }) });
    const location = redact(url);
    try {
      options.onProgress?.('migrate');
      await migrateToLatest(db);
    } catch (e) {
      await db.destroy().catch(() => {});
      throw new Error(`cannot open PostgreSQL at ${location}: ${describeConnectError(e, url)}`, { cause: e });
    }
    // Read-only pools open lazily, one per statement timeout, and connect only when probes run.
    const readOnlyDbs = new Map<number, Kysely<DynamicDatabase>>();
    const readOnlyDb = (timeoutMs: number) => {
      const t = Math.max(1, Math.floor(timeoutMs));
      let ro = readOnlyDbs.get(t);
      if (!ro && readOnlyDbs.size < MAX_READ_ONLY_POOLS) {
        ro = new Kysely<DynamicDatabase>({ dialect: new PostgresDialect({ pool: postgresPool(url, max, readOnlySessionOptions(t)) }) });
        readOnlyDbs.set(t, ro);
      }
      return ro;
    };
    const readOnly: ReadOnlySessions = {
      query: (timeoutMs, query) => readOnlyDb(timeoutMs)?.executeQuery(query),
      db: readOnlyDb,
      async close() {
        const all = [...readOnlyDbs.values()];
        readOnlyDbs.clear();
        await Promise.all(all.map((d) => d.destroy()));
      },
    };
    const close = async () => {
      try {
        await readOnly.close();
      } finally {
        await db.destroy();
      }
    };
    return { db, now, engine: 'postgres', location, readOnly, close };
  }
  const dir = options.dataDir ?? join(process.cwd(), '.bvl', 'data');
  if (dir !== 'memory') await mkdir(dir, { recursive: true });
  const reserve = options.diskReserve ?? PGLITE_DISK_RESERVE;
  if (dir !== 'memory') {
    // A first open writes a whole cluster; on a disk without room for it PGlite crashes the process.
    const fresh = !(await readFile(join(dir, 'PG_VERSION'), 'utf8').catch(() => ''));
    const free = freeBytes(dir);
    if (free !== undefined && free < reserve + (fresh ? PGLITE_INIT_BYTES : 0))
      throw new Error(`cannot open ${diskFull(dir, free, reserve + (fresh ? PGLITE_INIT_BYTES : 0)).message}`);
  }
  // PGlite is single-process: a second process on the same folder corrupts it. Hold a lock file.
  const unlock = dir === 'memory' ? async () => {} : await lockDataDir(dir);
  let lite: PGlite;
  try {
    options.onProgress?.('start');
    const fresh = dir !== 'memory' && !existsSync(join(dir, 'PG_VERSION'));
    const loadDataDir = options.loadDataDir ?? (fresh ? (options.newDataDirTemplate ?? (await templateOfNewDataDir?.())) : undefined);
    lite = await PGlite.create(dir === 'memory' ? undefined : dir, loadDataDir ? { loadDataDir } : {});
  } catch (e) {
    await unlock();
    throw new Error(`cannot open PGlite at ${dir}: ${(e as Error).message}`, { cause: e });
  }
  // COPY FROM '/dev/blob' for the seed writer's bulk path (see copy-rows).
  const db = new Kysely<BvlDatabase>({ dialect: new PGliteDialect(enableCopyOnPglite(dir === 'memory' ? lite : guardDisk(lite, dir, reserve)) as PGlite) });
  try {
    // One session for the whole instance: UTC, for the same reason as on PostgreSQL.
    await lite.exec(`set timezone to 'UTC'`);
    options.onProgress?.('migrate');
    await migrateToLatest(db);
  } catch (e) {
    await db.destroy().catch(() => {});
    await unlock();
    throw new Error(`cannot migrate PGlite at ${dir}: ${(e as Error).message}`, { cause: e });
  }
  const close = async () => {
    try {
      await db.destroy();
    } finally {
      await unlock();
    }
  };
  const platform: Platform = {
    db,
    now,
    engine: 'pglite',
    location: dir === 'memory' ? 'PGlite (in memory)' : `PGlite at ${dir}`,
    readOnly: pgliteReadOnly(db, lite),
    close,
  };
  Object.defineProperty(platform, LITE, { value: lite });
  return platform;
}

/**
 * A PostgreSQL pool. Sessions run in UTC: seed CEL (`today()`, `daysAgo(n)`) is computed in UTC, and
 * `{today}` in filters is the database's current_date, so both must mean the same day. `extra` adds
 * connection options (the read-only sessions' settings).
 */
function postgresPool(url: string, max: number, extra: string, applicationName?: string): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    connectionTimeoutMillis: 10_000,
    options: `-c TimeZone=UTC${extra ? ` ${extra}` : ''}`,
    ...(applicationName ? { application_name: applicationName } : {}),
  });
  // A network error must not crash the process: an idle client's surfaces on the next query, and a
  // checked-out client's (the server went away mid-request) rejects the query in flight.
  pool.on('error', () => {});
  pool.on('connect', (client) => {
    client.on('error', () => {});
    // COPY FROM STDIN for the seed writer's bulk path (see copy-rows).
    enableCopyOnPg(client);
    retryFirstReadOnce(pool, client);
  });
  pool.on('acquire', (client) => {
    (client as PooledClient)[FRESH] = true;
  });
  skipDeadOnBorrow(pool);
  return pool;
}

const FRESH = Symbol('bvl.freshBorrow');
/**
 * How soon a statement must fail for its connection to count as dead before it ran. Measured: a
 * connection killed while idle fails its next statement in 0.5–6 ms (through a TCP proxy, load 3–5);
 * a running query an admin kills has run for longer.
 */
const DEAD_ON_ARRIVAL_MS = 50;
type PooledClient = pg.PoolClient & { [FRESH]?: boolean; _queryable?: boolean; _ending?: boolean };

/** Whether a pooled client is already known to be unusable (its socket ended or errored): a check of two flags, no round trip. */
const isDead = (client: PooledClient) => client._queryable === false || client._ending === true;

/**
 * A borrow never hands out a connection the pool already knows is dead (the server killed it while
 * idle and the driver has read that): it is dropped and another taken. Free — no round trip.
 */
function skipDeadOnBorrow(pool: pg.Pool): void {
  const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  (pool as { connect: unknown }).connect = async (...args: unknown[]) => {
    if (args.length > 0) return (connect as (...a: unknown[]) => unknown)(...args);
    for (let i = 0; ; i++) {
      const client = (await connect()) as PooledClient;
      if (!isDead(client) || i >= 2 * Math.max(1, pool.options.max ?? 10)) return client;
      client.release(new Error('connection already closed by the server'));
    }
  };
}

/** A statement that only reads: running it twice changes nothing (no data-modifying CTE, no sequence, no lock). */
export function isReadOnlyStatement(sql: string): boolean {
  const text = sql.replace(/--[^\n]*|\/\*[\s\S]*?\*\//g, ' ').trim();
  if (!/^(select|with|values|show|table)\b/i.test(text)) return false;
  return !/\b(insert|update|delete|merge|into|nextval|setval|lock|for\s+(no\s+key\s+)?(update|share)|pg_advisory\w*|pg_terminate_backend|pg_cancel_backend|set_config|dblink\w*)\b/i.test(
    text,
  );
}

/**
 * A connection the server killed while it sat in the pool (pg_terminate_backend, an admin shutdown:
 * 57P01–57P03; or the socket reset) is noticed only when used, if the driver has not yet read the
 * news. When that first statement after a borrow is a read (or was never sent: the client was
 * already closed), it runs once more on a fresh connection and the caller never sees the dead one;
 * the dead client leaves the pool when released. Only a statement that failed within
 * {@link DEAD_ON_ARRIVAL_MS} of being sent is retried: one killed after it ran a while stays killed. A write is never retried — it may have committed
 * before the connection died — and neither is anything inside a transaction (a `begin` is the first
 * statement of one, so the rest would stay on the dead connection).
 */
function retryFirstReadOnce(pool: pg.Pool, client: pg.PoolClient): void {
  const c = client as PooledClient;
  const query = c.query.bind(c) as (...args: unknown[]) => unknown;
  (c as { query: unknown }).query = (...args: unknown[]) => {
    const fresh = c[FRESH] === true;
    c[FRESH] = false;
    const [sql, values] = args;
    // Only the promise form with SQL text (kysely's); callbacks, Query objects and cursors pass through.
    if (!fresh || typeof sql !== 'string' || args.length > 2 || typeof values === 'function') return query(...args);
    const sent = performance.now();
    return (query(...args) as Promise<pg.QueryResult>).catch(async (e: unknown) => {
      const notSent = e instanceof Error && /is not queryable/.test(e.message);
      // Failed within a round trip: the connection was dead before the statement ran. One that ran a
      // while and was then killed (an admin ending a runaway query) is not run again.
      if (performance.now() - sent > DEAD_ON_ARRIVAL_MS && !notSent) throw e;
      if (!isConnectionLost(e) || !(notSent ? !/^\s*(begin|start)\b/i.test(sql) : isReadOnlyStatement(sql))) throw e;
      const other = (await pool.connect()) as PooledClient;
      other[FRESH] = false;
      let lost: Error | undefined;
      try {
        return await (other.query as (...a: unknown[]) => Promise<pg.QueryResult>)(sql, values);
      } catch (again) {
        if (isConnectionLost(again)) lost = again as Error;
        throw again;
      } finally {
        other.release(lost);
      }
    });
  };
}

/** Dumps a PGlite-backed platform's data dir (tests migrate once and start every file from the dump). */
export async function dumpPglite(platform: Platform): Promise<Blob> {
  if (platform.engine !== 'pglite') throw new Error('dumpPglite needs a PGlite platform');
  const lite = (platform as Platform & { [LITE]?: PGlite })[LITE];
  if (!lite) throw new Error('this platform was not opened by openPlatform');
  return lite.dumpDataDir('none');
}

function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'the DATABASE_URL (not a valid URL)';
  }
}
