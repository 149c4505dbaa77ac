import { type BuildIssue, makeIssue } from '@bvl/build-issue';
import { type Graph, pointer, type SeedNode } from '@bvl/metadata';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { conversionOf, describeColumnType } from './convert-column.ts';
import type { ExistingSchema, SchemaStep } from './diff-schema.ts';
import { identifierProblem } from './identifier.ts';
import type { TablePlan } from './plan-tables.ts';
import { SEED_CHUNK } from './seed-limits.ts';
import { heldSeedRecords, type SeedRecordsOf } from './seed-records.ts';

/** What a republish is checked against: the steps it would run, the tables as they are, the metadata before and after. */
export interface RepublishInput {
  readonly schema: string;
  readonly steps: readonly SchemaStep[];
  readonly existing: ExistingSchema;
  readonly tables: readonly TablePlan[];
  /** The graph being published. */
  readonly graph: Graph;
  /** Field definitions per object as published before this publish (raw bodies). */
  readonly before: ReadonlyMap<string, Readonly<Record<string, unknown>>>;
  /** Seeds this publish applies (their `replace` mode is warned about). */
  readonly seeds: readonly SeedNode[];
  readonly env: string;
  /** Proceed with changes that lose or change existing data (and say what changed). */
  readonly allowDataChange: boolean;
  /** Where a `replace` seed's records are read from (default: `def.records`); read in `db`, a transaction. */
  readonly records?: SeedRecordsOf;
}

/** The verdict: errors refuse the publish; warnings travel with it; `afterDdl` runs after the DDL when data changes are allowed. */
export interface RepublishCheck {
  readonly errors: BuildIssue[];
  readonly warnings: BuildIssue[];
  readonly afterDdl: RawBuilder<unknown>[];
}

const ALLOW =
  'the data change allowed (`bvl publish --allow-data-change`; `"allowDataChange": true` in the body of an HTTP publish or the arguments of the MCP publish tool)';
const quote = (v: string | null, max = 60): string => (v === null ? 'empty' : JSON.stringify(v.length > max ? `${v.slice(0, max - 1)}…` : v));
const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;
/** "N of its M rows hold …", with the verb agreeing with N. */
const agree = (n: number, phrase: string): string => (n === 1 ? phrase.replace(/^hold\b/, 'holds').replace(/^have\b/, 'has') : phrase);
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A field's option values as text (how select columns store them). */
function optionValues(def: unknown): string[] | undefined {
  if (!isRecord(def) || !Array.isArray(def.options) || def.options.length === 0) return undefined;
  return def.options.flatMap((o) => {
    const v = isRecord(o) ? o.value : o;
    return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? [String(v)] : [];
  });
}

const fieldType = (def: unknown): string | undefined => (isRecord(def) && typeof def.type === 'string' ? def.type : undefined);

/**
 * Decides, before any DDL runs, what a republish does to the rows already there, counting them:
 * a type or cardinality change that loses or changes values (a datetime becoming a date, a list
 * becoming one value, text that does not parse as the new type) and an option a select no longer
 * offers while rows hold it are errors unless `allowDataChange` is set (then they proceed, and each
 * is a `data_changed_on_republish` warning saying how many rows changed); a new `unique` or
 * `storage.notNull` the rows already violate is an error either way (the index or constraint could
 * not be built); `mode: "replace"` seeds are warned about with the rows they delete, and refused
 * like any data loss (unless `allowDataChange`) when some of those rows are not among the seed's
 * records (rows users added, or records the seed dropped). Reads only.
 */
export async function checkRepublish<DB>(db: Kysely<DB>, input: RepublishInput): Promise<RepublishCheck> {
  const errors: BuildIssue[] = [];
  const warnings: BuildIssue[] = [];
  const afterDdl: RawBuilder<unknown>[] = [];
  /** A count over a table's rows: `report` when some match, `clean` (if any) when none do. */
  type Probe = { table: string; predicate: RawBuilder<boolean>; report: (n: number, total: number) => Promise<void>; clean?: () => void };
  const probes: Probe[] = [];
  const table = (name: string) => sql.id(input.schema, name);
  const fieldOf = (t: string, c: string) => input.graph.objects.get(t)?.fields.get(c);
  const where = (t: string, c: string) => ({
    artifact: { type: 'object', name: t },
    ref: { type: 'object', name: t, member: c },
    path: pointer('fields', c),
    draft: input.graph.objects.get(t)?.draft === true,
  });
  const altered = new Set<string>();

  for (const step of input.steps) {
    // A swap of a shadow built ahead converts as the type change would: its lossy rows are counted the same.
    if (step.kind === 'alter_column_type' || step.kind === 'swap_shadow_column') {
      altered.add(`${step.table}\u0000${step.column}`);
      const conv = conversionOf(step.column, step.from, step.to);
      if (!conv.lossy) continue;
      const predicate = conv.lossy;
      const before = fieldType(input.before.get(step.table)?.[step.column]);
      const after = fieldOf(step.table, step.column)?.def.type;
      const cardinality = step.from !== 'other' && step.from.array !== step.to.array;
      const change =
        before && after && before !== after
          ? `from ${before} to ${after}`
          : before && after && cardinality
            ? `from a ${step.to.array ? 'single' : 'multiple'} ${after} to a ${step.to.array ? 'multiple' : 'single'} one`
            : `from ${describeColumnType(step.from)} to ${describeColumnType(step.to)}`;
      probes.push({
        table: step.table,
        predicate,
        report: async (n, total) => {
          const example = await sql<{ before: string | null; after: string | null }>`
            select (${sql.id(step.column)})::text as before, (${conv.using})::text as after from ${table(step.table)} where ${predicate} limit 1`.execute(db);
          const e = example.rows[0];
          const eg = e ? `; e.g. ${quote(e.before)} becomes ${quote(e.after)}` : '';
          const head = `Field "${step.column}" of object "${step.table}" changes ${change}, and ${n} of its ${plural(total, 'row')} ${agree(n, conv.rows)}`;
          if (input.allowDataChange)
            warnings.push(
              makeIssue({
                code: 'data_changed_on_republish',
                ...where(step.table, step.column),
                message: `${head}: the conversion lost ${conv.loses} in those rows${eg}, as allowDataChange allowed.`,
              }),
            );
          else
            errors.push(
              makeIssue({
                code: 'data_loss_on_republish',
                ...where(step.table, step.column),
                message: `${head}: converting would lose ${conv.loses}${eg}. bvl refused the publish so that no data changes by accident.`,
                fix: `Keep the field as it was, change those rows first, or publish again with ${ALLOW} to convert them and lose ${conv.loses}.`,
              }),
            );
        },
      });
    }
  }

  // Options a select no longer offers, while rows hold them (the column keeps its type).
  for (const t of input.tables) {
    const have = input.existing.tables.get(t.name);
    const old = input.before.get(t.name);
    if (!have || !old) continue;
    for (const col of t.columns) {
      if (col.origin !== 'field' || col.type.base !== 'text' || altered.has(`${t.name}\u0000${col.name}`)) continue;
      const current = have.columns.get(col.name);
      if (current === undefined || current === 'other' || current.base !== 'text' || current.array !== col.type.array) continue;
      const was = optionValues(old[col.name]);
      const now = optionValues(fieldOf(t.name, col.name)?.def);
      if (!was || !now) continue;
      const removed = was.filter((v) => !now.includes(v));
      if (removed.length === 0) continue;
      const c = sql.id(col.name);
      const predicate = col.type.array
        ? sql<boolean>`coalesce(${c} && ${removed}::text[], false)`
        : sql<boolean>`coalesce(${c} = any(${removed}::text[]), false)`;
      const list = removed
        .slice(0, 5)
        .map((v) => quote(v))
        .join(', ');
      const shown = removed.length > 5 ? `${list}, … (${removed.length} in all)` : list;
      probes.push({
        table: t.name,
        predicate,
        report: async (n, total) => {
          const head = `Field "${col.name}" of object "${t.name}" no longer offers option${removed.length === 1 ? '' : 's'} ${shown}, and ${n} of its ${plural(total, 'row')} ${agree(n, 'hold')} ${removed.length === 1 ? 'it' : 'them'}`;
          if (input.allowDataChange) {
            afterDdl.push(
              col.type.array
                ? sql`update ${table(t.name)} set ${c} = array(select u.x from unnest(${c}) with ordinality as u(x, o) where u.x <> all(${removed}::text[]) order by u.o) where ${predicate}`
                : sql`update ${table(t.name)} set ${c} = null where ${predicate}`,
            );
            warnings.push(
              makeIssue({
                code: 'data_changed_on_republish',
                ...where(t.name, col.name),
                message: `${head}: the removed option values were cleared from those rows, as allowDataChange allowed.`,
              }),
            );
          } else
            errors.push(
              makeIssue({
                code: 'data_loss_on_republish',
                ...where(t.name, col.name),
                message: `${head}: the rows would keep values the field no longer offers. bvl refused the publish so that no data changes by accident.`,
                fix: `Keep the option${removed.length === 1 ? '' : 's'}, change those rows first, or publish again with ${ALLOW} to clear the removed values from them.`,
              }),
            );
        },
      });
    }
  }

  // New constraints over rows that break them: the DDL would fail, so say which rows and why first.
  for (const step of input.steps) {
    const have = input.existing.tables.get(step.table);
    if (!have) continue;
    if (step.kind === 'set_not_null') {
      const existed = have.columns.has(step.column);
      const planned = input.tables.find((t) => t.name === step.table)?.columns.find((c) => c.name === step.column);
      // A new column with a default gets that default in every existing row.
      if (!existed && planned?.default) continue;
      probes.push({
        table: step.table,
        predicate: existed ? sql<boolean>`${sql.id(step.column)} is null` : sql<boolean>`true`,
        report: async (n, total) => {
          errors.push(
            makeIssue({
              code: 'rows_violate_constraint',
              ...where(step.table, step.column),
              message: `Field "${step.column}" of object "${step.table}" declares storage.notNull, but ${n} of its ${plural(total, 'row')} ${agree(n, 'have')} no value${existed ? '' : ' (the field is new and has no defaultValue)'}, so the column cannot be made NOT NULL. bvl refused the publish.`,
              fix: `Give those rows a value first${existed ? '' : ', or give the field a defaultValue (it fills existing rows)'}, or drop storage.notNull: required alone is ObjectStack's write contract and needs no column constraint.`,
            }),
          );
        },
      });
    }
    if (step.kind === 'create_index' && step.unique && step.columns.every((c) => have.columns.has(c) && !identifierProblem(c))) {
      const field = step.columns[step.columns.length - 1]!;
      const nullSafe = new Set(step.nullSafe ?? []);
      const keys = step.columns.map((c) => (nullSafe.has(c) ? sql`coalesce(${sql.id(c)}::text, '')` : sql`${sql.id(c)}`));
      const dup = await sql<{ rows: number; groups: number; example: string | null; most: number | null }>`
        select coalesce(sum(d.n), 0)::int as rows, count(*)::int as groups, (array_agg(d.k order by d.n desc, d.k))[1] as example, max(d.n)::int as most
        from (select (${sql.id(field)})::text as k, count(*) as n from ${table(step.table)}
              where ${sql.id(field)} is not null group by ${sql.join(keys)} having count(*) > 1) as d`.execute(db);
      const d = dup.rows[0];
      if (d && d.rows > 0) {
        const total = Number((await sql<{ n: number }>`select count(*)::int as n from ${table(step.table)}`.execute(db)).rows[0]?.n ?? 0);
        errors.push(
          makeIssue({
            code: 'rows_violate_constraint',
            ...where(step.table, field),
            message: `Field "${field}" of object "${step.table}" is declared unique${nullSafe.size > 0 ? ' per organization' : ''}, but ${d.rows} of its ${plural(total, 'row')} share ${plural(d.groups, 'value')} (e.g. ${quote(d.example)} in ${d.most} rows), so the unique index cannot be built. bvl refused the publish.`,
            fix: `Make those values unique first, or drop unique from the field.`,
          }),
        );
      }
    }
  }

  // A foreign key added to a table that holds rows is added NOT VALID (old rows are not checked by
  // the DDL). Once the DDL ran it is validated when every row holds — a lookup turned from multiple
  // to single included, whose first ids may point at rows that are gone (a list has no foreign key).
  for (const step of input.steps) {
    if (step.kind !== 'add_foreign_key' || step.validate) continue;
    const have = input.existing.tables.get(step.table);
    if (!have || identifierProblem(step.column) || identifierProblem(step.references.table)) continue;
    const current = have.columns.get(step.column);
    const validate = sql`alter table ${table(step.table)} validate constraint ${sql.id(step.name)}`;
    // A column the DDL adds is empty in every row.
    if (current === undefined) {
      afterDdl.push(validate);
      continue;
    }
    if (current === 'other') continue;
    const c = sql.id(step.column);
    const value = current.array ? sql`(${c})[1]` : sql`${c}`;
    const target = step.references.table;
    const found = input.existing.tables.has(target) ? sql`exists (select 1 from ${table(target)} as x where x.id::text = (${value})::text)` : sql`false`;
    const predicate = sql<boolean>`${value} is not null and not ${found}`;
    probes.push({
      table: step.table,
      predicate,
      clean: () => afterDdl.push(validate),
      report: async (n, total) => {
        // Rows already pointing nowhere under a single lookup: left as they were (NOT VALID), as before.
        if (!current.array) return;
        const example = await sql<{ v: string | null }>`select (${value})::text as v from ${table(step.table)} where ${predicate} limit 1`.execute(db);
        const eg = example.rows[0] ? ` (e.g. ${quote(example.rows[0].v)})` : '';
        const head = `Field "${step.column}" of object "${step.table}" becomes a single lookup to "${target}", and ${n} of its ${plural(total, 'row')} ${agree(n, `hold`)} a first id no "${target}" row has${eg}`;
        if (input.allowDataChange) {
          afterDdl.push(
            sql`update ${table(step.table)} as t set ${c} = null where t.${c} is not null and not exists (select 1 from ${table(target)} as x where x.id::text = t.${c}::text)`,
            validate,
          );
          warnings.push(
            makeIssue({
              code: 'data_changed_on_republish',
              ...where(step.table, step.column),
              message: `${head}: those ids were cleared, so the foreign key holds every row, as allowDataChange allowed.`,
            }),
          );
        } else
          errors.push(
            makeIssue({
              code: 'data_loss_on_republish',
              ...where(step.table, step.column),
              message: `${head}: the foreign key cannot hold those rows, and clearing them loses the values. bvl refused the publish so that no data changes by accident.`,
              fix: `Point those rows at existing "${target}" rows first, or publish again with ${ALLOW} to clear them.`,
            }),
          );
      },
    });
  }

  // One scan per table for every count it needs.
  const byTable = new Map<string, Probe[]>();
  for (const p of probes) byTable.set(p.table, [...(byTable.get(p.table) ?? []), p]);
  for (const [name, list] of byTable) {
    const counts = sql.join(list.map((p, i) => sql`count(*) filter (where ${p.predicate})::int as ${sql.id(`c${i}`)}`));
    const row = (await sql<Record<string, number>>`select count(*)::int as total, ${counts} from ${table(name)}`.execute(db)).rows[0] ?? {};
    const total = Number(row.total ?? 0);
    for (const [i, p] of list.entries()) {
      const n = Number(row[`c${i}`] ?? 0);
      if (n > 0) await p.report(n, total);
      else p.clean?.();
    }
  }

  // `mode: "replace"` deletes every row of its object on every publish.
  for (const seed of input.seeds) {
    if (seed.mode !== 'replace' || seed.invalid || (seed.def.env && !seed.def.env.includes(input.env))) continue;
    const have = input.existing.tables.get(seed.object);
    if (!have || identifierProblem(seed.object)) continue;
    const [key] = seed.externalId;
    const keyed = seed.externalId.length === 1 && key !== undefined && have.columns.has(key) && !identifierProblem(key);
    const keys = keyed ? await replaceKeys(db, seed, key!, input.records ?? heldSeedRecords) : { inline: [] };
    const r = (
      await sql<{
        total: number;
        extra: number | null;
      }>`${
        !keyed
          ? sql`select count(*)::int as total, null::int as extra from ${table(seed.object)}`
          : 'inline' in keys
            ? sql`select count(*)::int as total, count(*) filter (where ${sql.id(key!)} is null or (${sql.id(key!)})::text <> all(${keys.inline}::text[]))::int as extra from ${table(seed.object)}`
            : // More keys than one statement should carry: they were put in a temporary table, joined once.
              sql`select count(*)::int as total, count(*) filter (where t.${sql.id(key!)} is null or k.k is null)::int as extra
                  from ${table(seed.object)} as t left join (select distinct k from ${sql.id('pg_temp', keys.table)}) as k on k.k = (t.${sql.id(key!)})::text`
      }`.execute(db)
    ).rows[0];
    if ('table' in keys) await sql`drop table ${sql.id('pg_temp', keys.table)}`.execute(db);
    if (!r || r.total === 0) continue;
    // Rows no record recreates: counted by key, or (no single key) at least those past the records.
    const extra = keyed ? (r.extra ?? 0) : Math.max(0, r.total - seed.recordCount);
    const where = { artifact: { type: 'seed', name: seed.name }, ref: { type: 'object', name: seed.object }, path: '/mode', draft: seed.draft };
    if (extra > 0 && !input.allowDataChange) {
      errors.push(
        makeIssue({
          code: 'data_loss_on_republish',
          ...where,
          message: `Seed "${seed.name}" uses mode "replace": this publish would delete all ${plural(r.total, 'row')} of object "${seed.object}" and write its ${plural(seed.recordCount, 'record')} again, and ${keyed ? '' : 'at least '}${plural(extra, 'row')} ${extra === 1 ? 'is' : 'are'} not among the seed's records (added outside the seed${keyed ? '' : `; without a single externalId bvl cannot tell which`}): ${extra === 1 ? 'it' : 'they'} would be gone. bvl refused the publish so that no data is lost by accident.`,
          fix: `Use mode "upsert" with an externalId to keep rows added outside the seed, delete those rows yourself first, or publish again with ${ALLOW} to let the seed delete them.`,
        }),
      );
      continue;
    }
    warnings.push(
      makeIssue({
        code: 'seed_replace_deletes_rows',
        ...where,
        message: `Seed "${seed.name}" uses mode "replace": this publish deletes all ${plural(r.total, 'row')} of object "${seed.object}" and writes its ${plural(seed.recordCount, 'record')} again, with new ids (lookups to the old rows are cleared)${extra > 0 ? `; ${plural(extra, 'deleted row')} ${extra === 1 ? 'is' : 'are'} not among the seed's records (added outside the seed) and will be gone` : ''}.`,
        fix: 'Use mode "upsert" with an externalId to keep rows added outside the seed and the ids other rows point at; keep "replace" only for data the seed alone owns.',
      }),
    );
  }
  return { errors, warnings, afterDdl };
}

let keyTables = 0;

/**
 * The keys of a `replace` seed's records (single key field `key`, missing ones left out), read
 * from its source part by part: up to {@link SEED_CHUNK} of them as one array, more in a temporary
 * table of the transaction `db` (dropped by the caller, and at its end), so none is held whole.
 */
async function replaceKeys<DB>(db: Kysely<DB>, seed: SeedNode, key: string, recordsOf: SeedRecordsOf): Promise<{ inline: string[] } | { table: string }> {
  let keys: string[] = [];
  let table: string | undefined;
  const flush = async () => {
    if (table === undefined) {
      table = `bvl_replace_keys_${++keyTables}`;
      await sql`create temporary table ${sql.id('pg_temp', table)} (k text) on commit drop`.execute(db);
    }
    await sql`insert into ${sql.id('pg_temp', table)} (k) select unnest(${keys}::text[])`.execute(db);
    keys = [];
  };
  for await (const part of recordsOf(db as unknown as Parameters<SeedRecordsOf>[0], seed)()) {
    for (const r of part) {
      const v = r[key];
      if (v !== null && v !== undefined) keys.push(String(v));
    }
    if (keys.length > SEED_CHUNK) await flush();
  }
  if (table === undefined) return { inline: keys };
  if (keys.length > 0) await flush();
  return { table };
}
