import { randomBytes } from 'node:crypto';
import { VIEW_FILTER_OPERATORS } from '@bvl/platform';
import type { DatasetSelection } from '@bvl/render-contract';
import type { ViewRead } from '@bvl/runtime-probes';
import type { StackDoc } from './doc-key.ts';
import type { Answer, Unit } from './engine-units.ts';
import { normaliseRows, optionLabels } from './normalise.ts';
import { importFrom, packageVersion } from './objectstack.ts';

/**
 * ObjectStack's engine, in-process: `@objectstack/objectql` (the data engine) on
 * `@objectstack/driver-sql` (knex, PostgreSQL), its seeds loaded through ObjectStack's own
 * `SeedLoaderService` (`@objectstack/metadata-protocol`, the loader a publish uses), and dataset
 * queries answered by `@objectstack/service-analytics` wired as its kernel plugin wires itself
 * (auto-bridged to the engine's aggregate and raw-SQL paths).
 */
export interface ObjectStackEngine {
  readonly version: string;
  /** Boots the stack in a schema of its own (created, then dropped), loads its seeds, answers every unit. Never throws. */
  answer(doc: StackDoc, units: readonly Unit[]): Promise<Answer[]>;
}

type Json = Record<string, unknown>;
type Mod = Record<string, unknown>;
// biome-ignore lint/suspicious/noExplicitAny: ObjectStack's engine classes are used through their runtime surface only
type Any = any;

/** The engine's packages (besides @objectstack/spec), pinned as the oracle package's dev dependencies. */
export const ENGINE_PACKAGES = ['@objectstack/objectql', '@objectstack/driver-sql', '@objectstack/service-analytics', '@objectstack/metadata-protocol'];

/**
 * Loads the engine packages (from this package, or from another install: `oracle:try`); a string
 * saying what is missing when they cannot be loaded or no server is given (the engine part then skips).
 */
export async function loadObjectStackEngine(databaseUrl: string | undefined, from?: string): Promise<ObjectStackEngine | string> {
  if (!databaseUrl) return 'DATABASE_URL is not set: the engine authority needs a PostgreSQL server (CI sets it)';
  let objectql: Mod;
  let driverSql: Mod;
  let analytics: Mod;
  let protocol: Mod;
  let spec: Mod;
  let specData: Mod;
  let version: string;
  try {
    const mods = await Promise.all([...ENGINE_PACKAGES, '@objectstack/spec', '@objectstack/spec/data'].map((name) => importFrom(name, from)));
    [objectql, driverSql, analytics, protocol, spec, specData] = mods as [Mod, Mod, Mod, Mod, Mod, Mod];
    version = await packageVersion('@objectstack/objectql', from);
  } catch (e) {
    return `ObjectStack engine packages not installed (${(e as Error).message.split('\n')[0]}): npm install -w @bvl/oracle`;
  }
  const ObjectQL = objectql.ObjectQL as new (host?: Json) => Any;
  const SqlDriver = driverSql.SqlDriver as new (config: Json) => Any;
  const AnalyticsServicePlugin = analytics.AnalyticsServicePlugin as new (options?: Json) => Any;
  const SeedLoaderService = protocol.SeedLoaderService as new (engine: Any, metadata: Any, logger: Any) => Any;
  const SeedLoaderRequestSchema = specData.SeedLoaderRequestSchema as { parse(v: unknown): Any; safeParse(v: unknown): { success: boolean; error?: unknown } };
  const defineStack = spec.defineStack as (doc: unknown, options?: { strict?: boolean }) => Json;

  return {
    version,
    async answer(doc, units) {
      const schema = `oracle_os_${process.pid}_${randomBytes(4).toString('hex')}`;
      const admin = new SqlDriver({ client: 'pg', connection: databaseUrl, pool: { min: 0, max: 1 } });
      let engine: Any;
      const all = (error: string): Answer[] => units.map((u) => ({ key: u.key, outcome: 'error', error }));
      return quietly(async () => {
        try {
          // The stack as ObjectStack stores it: parsed by the spec. A stack the spec refuses (the spec
          // oracle's verdict, compared there) is booted as written (`strict: false`), so the engine
          // still answers for what it can serve.
          let stack: Json;
          const input = canonicalSeeds(doc);
          try {
            stack = defineStack(structuredClone(input));
          } catch {
            try {
              stack = defineStack(structuredClone(input), { strict: false });
            } catch (e) {
              return all(`defineStack throws: ${firstLine(e)}`);
            }
          }
          await admin.knex.raw('create schema ??', [schema]);
          // Entries the engine refuses to register (its verdict on them) are left out one by one, so
          // it still boots and answers for the rest of the stack; each refused unit keeps the refusal.
          const refusedEntries = new Map<string, string>();
          let driver: Any;
          for (let attempt = 0; ; attempt++) {
            engine = new ObjectQL({ logger: SILENT });
            driver = new SqlDriver({ client: 'pg', connection: databaseUrl, searchPath: [schema], pool: { min: 0, max: 2 } });
            engine.registerDriver(driver, true);
            try {
              engine.registerApp({ id: 'oracle', name: 'oracle', ...stack });
              break;
            } catch (e) {
              const m = /`(views|dashboards|datasets):` entry '([^']+)'/.exec(firstLine(e));
              if (!m || attempt > 100) return all(`the engine does not boot the stack: ${firstLine(e)}`);
              refusedEntries.set(m[2]!, `the engine refuses ${m[1]} entry '${m[2]}': ${firstLine(e)}`);
              stack = { ...stack, [m[1]!]: ((stack[m[1]!] as Json[]) ?? []).filter((x) => x.name !== m[2]) };
            }
          }
          const objects = (stack.objects as Json[] | undefined) ?? [];
          try {
            await engine.init();
            await driver.initObjects(objects.map((o) => engine.getSchema(o.name as string) ?? o));
          } catch (e) {
            return all(`the engine does not boot the stack: ${firstLine(e)}`);
          }
          // The analytics plugin as a kernel would start it, with the engine as the `data` service.
          const services = new Map<string, unknown>([['data', engine]]);
          const ctx = {
            getService: (name: string) => {
              if (!services.has(name)) throw new Error(`service ${name} not registered`);
              return services.get(name);
            },
            registerService: (name: string, svc: unknown) => services.set(name, svc),
            logger: SILENT,
            hook: () => {},
          };
          await new AnalyticsServicePlugin().init(ctx);
          const service = services.get('analytics') as Any;
          // Seeds through ObjectStack's own loader, as a publish applies them (upsert, multi-pass).
          // A seed the loader's request schema refuses is left out (its object's unit keeps the refusal).
          // env `dev`: the environment bvl's publish seeds for (a seed's `env` scopes it on both).
          const config = { defaultMode: 'upsert', multiPass: true, env: 'dev' };
          const seeds: Json[] = [];
          const seedRefusals = new Map<string, string>();
          for (const seed of (stack.data as Json[] | undefined) ?? []) {
            const one = SeedLoaderRequestSchema.safeParse({ seeds: [seed], config });
            if (one.success) seeds.push(seed);
            else seedRefusals.set(String(seed.object), `the seed loader refuses the seed: ${oneLine(one.error)}`);
          }
          let seedError: string | undefined;
          // The loader's own per-record account, quoted with the object's unit when its rows differ.
          const recordErrors = new Map<string, string[]>();
          if (seeds.length) {
            try {
              const loader = new SeedLoaderService(engine, { getObject: async (n: string) => engine.getSchema(n) ?? null }, SILENT);
              const loaded = (await loader.load(SeedLoaderRequestSchema.parse({ seeds, config }))) as { errors?: Json[] };
              for (const e of loaded.errors ?? []) {
                const object = String(e.sourceObject ?? e.object ?? '');
                const was = recordErrors.get(object) ?? [];
                recordErrors.set(object, [...was, `record ${String(e.recordIndex)}${e.field ? ` (${String(e.field)})` : ''}: ${String(e.message)}`]);
              }
            } catch (e) {
              seedError = `the seed loader throws: ${oneLine(e)}`;
            }
          }
          const options = optionLabels(stack);
          const datasets = new Map(((stack.datasets as Json[] | undefined) ?? []).map((d) => [d.name as string, d]));
          const sys = { context: { isSystem: true } };
          const out: Answer[] = [];
          for (const u of units) {
            const refusedAs = refusedEntries.get(u.kind === 'view' ? u.key.slice('view '.length) : u.kind === 'widget' ? u.dataset : '');
            if (refusedAs) {
              out.push({ key: u.key, outcome: 'error', error: refusedAs });
              continue;
            }
            try {
              if (u.kind === 'seed') {
                const n = Number(await engine.count(u.object, sys));
                const refusal = seedRefusals.get(u.object);
                if (n === 0 && refusal) out.push({ key: u.key, outcome: 'error', count: 0, error: refusal });
                else {
                  const why = seedError ?? recordErrors.get(u.object)?.slice(0, 3).join('; ');
                  out.push({ key: u.key, outcome: n > 0 ? 'rows' : 'empty', count: n, ...(why ? { error: why } : {}) });
                }
              } else if (u.kind === 'view') {
                const rows = (await engine.find(u.object, { ...viewQuery(u.read), ...sys })) as unknown[];
                out.push({ key: u.key, outcome: rows.length ? 'rows' : 'empty' });
              } else {
                const dataset = datasets.get(u.dataset);
                if (!dataset) {
                  out.push({ key: u.key, outcome: 'error', error: `dataset "${u.dataset}" is not in the defined stack` });
                  continue;
                }
                const result = (await service.queryDataset(dataset, engineSelection(u.selection))) as { rows?: Json[] };
                const rows = result.rows ?? [];
                out.push({
                  key: u.key,
                  outcome: rows.length ? 'rows' : 'empty',
                  rows: normaliseRows(rows, { side: 'engine', selection: u.selection, dataset: u.dataset, options }),
                });
              }
            } catch (e) {
              out.push({ key: u.key, outcome: 'error', error: firstLine(e) });
            }
          }
          return out;
        } catch (e) {
          return all(`the engine crashed: ${firstLine(e)}`);
        } finally {
          try {
            await engine?.destroy();
          } catch {}
          try {
            await admin.knex.raw('drop schema if exists ?? cascade', [schema]);
          } finally {
            await admin.knex.destroy();
          }
        }
      });
    },
  };
}

/**
 * The document with its seeds' alias keys by their canonical names: bvl reads `key` as
 * `externalId` and `data`/`rows` as `records` (metadata's SeedSchema), ObjectStack's seed loader
 * refuses the aliases. The engine is given the canonical names so both engines load the same rows;
 * what the spec says of the aliases is the spec oracle's to compare (and is listed there).
 */
export function canonicalSeeds(doc: StackDoc): StackDoc {
  if (!Array.isArray(doc.data)) return doc;
  return {
    ...doc,
    data: doc.data.map((seed) => {
      if (typeof seed !== 'object' || seed === null || Array.isArray(seed)) return seed;
      const { key, data, rows, ...rest } = seed as Json;
      return {
        ...rest,
        ...(rest.externalId === undefined && key !== undefined ? { externalId: key } : {}),
        ...(rest.records === undefined && (data ?? rows) !== undefined ? { records: data ?? rows } : {}),
      };
    }),
  };
}

/**
 * A view's first-page read as an ObjectStack engine query (QueryAST: fields, where, orderBy, limit).
 * A filter written as `[{field, operator, value}]` rows becomes the Mongo-style `where` through
 * the view-filter operator table (ObjectStack's VIEW_FILTER_OPERATORS as bvl's platform carries it);
 * `is_empty`/`is_not_empty` become null tests.
 */
export function viewQuery(read: ViewRead): Json {
  let where: Json | undefined;
  if (Array.isArray(read.filter)) {
    const and = read.filter.map((row) => {
      const op = row.operator ?? 'equals';
      if (op === 'is_empty') return { [row.field]: { $eq: null } };
      if (op === 'is_not_empty') return { [row.field]: { $ne: null } };
      const to = VIEW_FILTER_OPERATORS[op];
      return { [row.field]: to ? to(row.value as never) : { [`$${op}`]: row.value } };
    });
    where = and.length === 1 ? and[0] : and.length ? { $and: and } : undefined;
  } else if (read.filter) where = { ...read.filter };
  return {
    ...(read.columns.length ? { fields: [...read.columns] } : {}),
    ...(where ? { where } : {}),
    ...(read.sort?.length ? { orderBy: read.sort.map((s) => ({ field: s.field, order: s.order })) } : {}),
    limit: read.limit,
  };
}

/**
 * The widget's selection in ObjectStack's vocabulary (`@objectstack/spec/contracts` DatasetSelection):
 * the widget's own filter is the presentation-scope `runtimeFilter` (ANDed with the dataset's filter);
 * measures, dimensions, dateGranularity, order and limit are the same keys.
 */
export function engineSelection(selection: DatasetSelection): Json {
  const { filter, ...rest } = structuredClone(selection);
  return { ...rest, measures: rest.measures ?? [], ...(filter ? { runtimeFilter: filter } : {}) };
}

const firstLine = (e: unknown): string => String((e as Error)?.message ?? e).split('\n')[0]!;
const oneLine = (e: unknown): string =>
  String((e as Error)?.message ?? e)
    .replace(/\s+/g, ' ')
    .slice(0, 400);

const noop = () => {};
const SILENT: Record<string, unknown> = process.env.ORACLE_ENGINE_LOG
  ? {
      debug: noop,
      info: noop,
      warn: (...a: unknown[]) => console.warn(...a),
      error: (...a: unknown[]) => console.error(...a),
      log: noop,
      trace: noop,
      fatal: noop,
    }
  : { debug: noop, info: noop, warn: noop, error: noop, log: noop, trace: noop, fatal: noop };
SILENT.child = () => SILENT;

/** ObjectStack logs to the console as it boots, loads and queries; the oracle reads answers, not the console. */
async function quietly<T>(fn: () => Promise<T>): Promise<T> {
  const saved = { log: console.log, warn: console.warn, info: console.info, debug: console.debug, error: console.error };
  // ORACLE_ENGINE_LOG=1 lets its console through (the driver logs a refused statement's SQL there).
  if (!process.env.ORACLE_ENGINE_LOG) Object.assign(console, { log: noop, warn: noop, info: noop, debug: noop, error: noop });
  try {
    return await fn();
  } finally {
    Object.assign(console, saved);
  }
}
