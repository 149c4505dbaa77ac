import { type BuildIssue, makeIssue } from '@bvl/build-issue';
import type { Graph, SeedNode } from '@bvl/metadata';
import type { ProbeOutcome } from './probe-engine.ts';
import type { SkippedProbe } from './probe-report.ts';

/** One record-level seed failure, as the platform's `seedApplied.errors` reports it. */
export interface SeedErrorDetail {
  readonly seed: string;
  readonly object: string;
  readonly recordIndex: number;
  readonly field?: string;
  readonly message: string;
  /** The record was written without this field's value (an unresolved lookup, an unknown field). */
  readonly dropped?: boolean;
}

/** The part of a publish's `seedApplied` the seed probe reads. */
export interface SeedApplyReport {
  readonly errors: readonly SeedErrorDetail[];
  readonly errorsOmitted?: number;
  readonly seeds?: ReadonlyArray<{ readonly seed: string; readonly applied: boolean; readonly reason?: string }>;
}

/** A planned seed probe: the object must have at least `expected` rows. */
export interface SeedProbe {
  readonly seed: SeedNode;
  readonly expected: number;
}

/** Seed errors quoted in a probe message; the rest are counted. */
export const MAX_QUOTED_SEED_ERRORS = 3;

/**
 * How many rows a seed must leave: one per distinct externalId (upsert/update/ignore/replace merge
 * repeats; a record with a missing key is its own row), every record for `insert`. Pure.
 */
export function expectedRows(seed: SeedNode): number {
  const records = seed.def.records;
  if (seed.mode === 'insert') return seed.recordCount;
  const keys = new Set<string>();
  let keyless = 0;
  for (const r of records) {
    const values = seed.externalId.map((k) => r[k]);
    if (values.some((v) => v === null || v === undefined)) keyless++;
    else keys.add(JSON.stringify(values));
  }
  return keys.size + keyless;
}

/**
 * A seed's records read part by part, in record order (graph-lint's `SeedRecordSource` shape: given
 * `fields`, each record may hold only those of its fields).
 */
export type SeedRecordSource = (fields?: readonly string[]) => AsyncIterable<readonly Readonly<Record<string, unknown>>[]>;

/**
 * {@link expectedRows} over records read from `source`, part by part, without holding them or
 * their keys: `insert` is the record count (no read); otherwise each key is kept as a 64-bit hash
 * of its text (8 bytes a record, in one typed array sorted once), the distinct hashes counted. Two
 * distinct keys share a hash with a chance of about n²/2^65 (1 in 400 million at 300,000 keys),
 * which would expect one row fewer. Throws what the source throws, and when it gives another number of
 * records than the seed has.
 */
export async function expectedRowsOf(seed: SeedNode, source: SeedRecordSource): Promise<number> {
  if (seed.mode === 'insert') return seed.recordCount;
  let hashes = new BigUint64Array(Math.max(16, seed.recordCount));
  let n = 0;
  let keyless = 0;
  let read = 0;
  // The natural key's fields only: what the count reads of a record.
  for await (const part of source(seed.externalId)) {
    read += part.length;
    for (const r of part) {
      const values = seed.externalId.map((k) => r[k]);
      if (values.some((v) => v === null || v === undefined)) {
        keyless++;
        continue;
      }
      if (n === hashes.length) {
        const grown = new BigUint64Array(hashes.length * 2);
        grown.set(hashes);
        hashes = grown;
      }
      hashes[n++] = hash64(JSON.stringify(values));
    }
  }
  // Fewer (or more) records than the seed has: its stored records went or changed since the publish
  // read them; a count over them would expect rows the publish never judged.
  if (read !== seed.recordCount)
    throw new Error(`seed "${seed.name}": its stored records gave ${read} of the ${seed.recordCount} records it has (they went or changed since the publish)`);
  const sorted = hashes.subarray(0, n).sort();
  let distinct = 0;
  for (let i = 0; i < n; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) distinct++;
  return distinct + keyless;
}

/** Two independent 32-bit hashes of a string's UTF-16 code units (FNV-1a and a multiply-xorshift), as one 64-bit value. */
function hash64(s: string): bigint {
  let a = 0x811c9dc5;
  let b = 0x9e3779b9;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x85ebca6b);
    b ^= b >>> 13;
  }
  a ^= a >>> 15;
  a = Math.imul(a, 0x2c1b3c6d);
  a ^= a >>> 12;
  b = Math.imul(b ^ (b >>> 16), 0xc2b2ae35);
  b ^= b >>> 16;
  return (BigInt(a >>> 0) << 32n) | BigInt(b >>> 0);
}

/** The seeds to probe, and the ones skipped with their reason. Pure. */
export function planSeedProbes(
  graph: Graph,
  options: { readonly env: string; readonly seedApplied?: SeedApplyReport | undefined },
): { probes: SeedProbe[]; skipped: SkippedProbe[] } {
  const probes: SeedProbe[] = [];
  const skipped: SkippedProbe[] = [];
  const notApplied = new Map((options.seedApplied?.seeds ?? []).filter((s) => !s.applied).map((s) => [s.seed, s.reason ?? 'not applied by the publish']));
  const skip = (seed: SeedNode, reason: string) => skipped.push({ plane: 'seeds', artifact: { type: 'seed', name: seed.name }, reason });
  for (const seed of [...graph.seeds.values()].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (seed.invalid) skip(seed, 'the seed fails its schema (reported by L1 as invalid_artifact)');
    else if (!graph.objects.has(seed.object)) skip(seed, `object "${seed.object}" does not exist (reported by L1 as dangling_object)`);
    else if (seed.def.env && !seed.def.env.includes(options.env)) skip(seed, `the seed's env (${seed.def.env.join(', ')}) does not include "${options.env}"`);
    else if (notApplied.has(seed.name) && !(options.seedApplied?.errors ?? []).some((e) => e.seed === seed.name)) skip(seed, notApplied.get(seed.name)!);
    else probes.push({ seed, expected: expectedRows(seed) });
  }
  return { probes, skipped };
}

/** The publish's own account of a seed's failures, quoted so the agent sees the cause, not only the symptom. */
function detail(seed: string, report: SeedApplyReport | undefined): string {
  const errors = (report?.errors ?? []).filter((e) => e.seed === seed);
  if (errors.length === 0) return report ? ' The publish reported no record error for this seed.' : '';
  const quoted = errors
    .slice(0, MAX_QUOTED_SEED_ERRORS)
    .map((e) => `${e.recordIndex < 0 ? 'the seed' : `record ${e.recordIndex}`}${e.field ? ` (field "${e.field}")` : ''}: ${e.message}`)
    .join('; ');
  const more = errors.length > MAX_QUOTED_SEED_ERRORS ? `; and ${errors.length - MAX_QUOTED_SEED_ERRORS} more` : '';
  return ` The publish reported: ${quoted}${more}.`;
}

/** Judges a seed probe from its object's row count: `seed_not_applied` (none), `row_count_mismatch` (fewer). Pure. */
export function judgeSeed(probe: SeedProbe, count: ProbeOutcome<number>, report: SeedApplyReport | undefined): BuildIssue | undefined {
  const { seed, expected } = probe;
  const artifact = { type: 'seed', name: seed.name };
  const ref = { type: 'object', name: seed.object };
  const fix = `Correct the failing records of seed "${seed.name}" (values must fit the field types of object "${seed.object}"; lookups must name an existing record's natural key) and publish again.`;
  if (!count.ok) {
    return makeIssue({
      code: 'seed_not_applied',
      artifact,
      ref,
      message: `Seed "${seed.name}" could not be checked: counting the rows of object "${seed.object}" failed: ${count.error}.${detail(seed.name, report)}`,
      fix: `Publish object "${seed.object}" so its table exists, then publish seed "${seed.name}" again.`,
    });
  }
  if (expected === 0 || count.value >= expected) return undefined;
  if (count.value === 0) {
    return makeIssue({
      code: 'seed_not_applied',
      artifact,
      ref,
      message: `Seed "${seed.name}" has ${expected} record${expected === 1 ? '' : 's'} for object "${seed.object}", but the object has no rows after publish.${detail(seed.name, report)}`,
      fix,
    });
  }
  return makeIssue({
    code: 'row_count_mismatch',
    artifact,
    ref,
    message: `Object "${seed.object}" has ${count.value} row${count.value === 1 ? '' : 's'} after publish, fewer than the ${expected} records of seed "${seed.name}".${detail(seed.name, report)}`,
    fix,
  });
}

/** Records named in a dropped-value message; the rest are counted. */
const MAX_NAMED_RECORDS = 5;

/**
 * Rows the publish wrote with a value dropped — a lookup that matched no row, a field the object
 * lacks — as `seed_value_dropped`, one per seed and field (records that failed whole are the count
 * probe's). The row exists, so no count shows it: without this it would live only in the report. Pure.
 */
export function judgeDroppedValues(probes: readonly SeedProbe[], report: SeedApplyReport | undefined): BuildIssue[] {
  const out: BuildIssue[] = [];
  const errors = report?.errors ?? [];
  for (const { seed } of probes) {
    const mine = errors.filter((e) => e.seed === seed.name);
    const failedRecords = new Set(mine.filter((e) => !e.dropped && e.recordIndex >= 0).map((e) => e.recordIndex));
    const byField = new Map<string, SeedErrorDetail[]>();
    for (const e of mine) {
      if (!e.dropped || e.field === undefined || e.recordIndex < 0 || failedRecords.has(e.recordIndex)) continue;
      byField.set(e.field, [...(byField.get(e.field) ?? []), e]);
    }
    for (const [field, list] of [...byField].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const records = [...new Set(list.map((e) => e.recordIndex))].sort((a, b) => a - b);
      const named = records.slice(0, MAX_NAMED_RECORDS).join(', ') + (records.length > MAX_NAMED_RECORDS ? `, … (${records.length} in all)` : '');
      out.push(
        makeIssue({
          code: 'seed_value_dropped',
          artifact: { type: 'seed', name: seed.name },
          ref: { type: 'object', name: seed.object, member: field },
          message: `Seed "${seed.name}" wrote ${records.length === 1 ? `record ${named}` : `records ${named}`} of object "${seed.object}" without its "${field}" value: ${list[0]!.message}.`,
          fix: `Give "${field}" a value the publish can store (a lookup must name an existing record's natural key or id; seed the target first), or leave it out of the records; then publish again.`,
          path: `/records/${records[0]}/${field.replaceAll('~', '~0').replaceAll('/', '~1')}`,
        }),
      );
    }
  }
  return out;
}
