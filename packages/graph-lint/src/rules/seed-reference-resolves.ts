import { type FieldNode, type Graph, type ObjectNode, RELATION_TYPES, referenceOf, resolveField, type SeedNode } from '@bvl/metadata';
import { defineRule, type SeedKeysRequest, type SeedPassContext } from '../define-rule.ts';
import { didYouMeanText, listing, q, suggest } from '../describe-names.ts';
import { seedValueWalker } from '../seed-field-values.ts';

/** The seeds whose records give an object's natural keys: its valid seeds, and the replaced published ones unless a seed now replaces its rows. */
function keySeeds(graph: Graph, object: string): SeedNode[] {
  const current = (graph.seedsByObject.get(object) ?? []).filter((s) => !s.invalid);
  // Rows an earlier publish upserted still exist unless the object's seed now replaces its rows.
  const prior = current.some((s) => s.mode === 'replace') ? [] : (graph.priorSeedsByObject.get(object) ?? []).filter((s) => !s.invalid);
  return [...current, ...prior];
}

/** The field a seed's records give their natural key by: its single externalId, else `name`. */
const keyField = (s: SeedNode): string => (s.externalId.length === 1 ? s.externalId[0]! : 'name');

/**
 * Natural keys of an object's seeded records: the target seed's externalId (single), else `name`,
 * plus explicit ids. A stored seed's (its node holds no records) are those the streamed lint read
 * ahead ({@link SeedPassContext.keys}); not read, judging against none would invent findings: it throws.
 */
function naturalKeys(
  graph: Graph,
  object: string,
  cache: Map<string, { keys: ReadonlySet<string>; by: string } | null>,
  context: SeedPassContext | undefined,
): { keys: ReadonlySet<string>; by: string } | null {
  const hit = cache.get(object);
  if (hit !== undefined) return hit;
  const seeds = keySeeds(graph, object);
  const target = graph.objects.get(object);
  if (seeds.length === 0) {
    // A platform object (sys_user, …) has no rows of its own where the build is published: only a
    // seed writes them, so with none every key is unresolved (the row is written with the field empty).
    const key = target?.platform ? platformKey(target) : undefined;
    const result = key === undefined ? null : { keys: new Set<string>(), by: key };
    cache.set(object, result);
    return result;
  }
  let keys: Set<string> | undefined;
  // One stored seed's keys are the object's as they are (not copied).
  let only: ReadonlySet<string> | undefined;
  const by = new Set<string>();
  for (const s of seeds) {
    const field = keyField(s);
    // A key field the object lacks is the target seed's own unknown_field; judging lookups against it would only cascade.
    if (!target || target.invalid || !resolveField(target, field)) {
      cache.set(object, null);
      return null;
    }
    by.add(field);
    if (s.stored !== undefined) {
      const read = context?.keys(s, field);
      if (!read) throw new Error(`the natural keys of stored seed "${s.name}" were not read ahead: lint it with lintGraphStreamed and a source of its records`);
      if (seeds.length === 1) only = read;
      else {
        keys ??= new Set<string>();
        for (const k of read) keys.add(k);
      }
      continue;
    }
    keys ??= new Set<string>();
    for (const r of s.def.records) {
      const v = r[field];
      if (typeof v === 'string' || typeof v === 'number') keys.add(String(v));
      if (typeof r.id === 'string' || typeof r.id === 'number') keys.add(String(r.id));
    }
  }
  const result = { keys: only ?? keys ?? new Set<string>(), by: [...by].join('/') };
  cache.set(object, result);
  return result;
}

/** The field the publish matches a platform object's lookup values by: an externalId field, else `name` (none: not judged). */
function platformKey(object: ObjectNode): string | undefined {
  for (const f of object.fields.values()) if (f.def.externalId === true) return f.name;
  return resolveField(object, 'name') ? 'name' : undefined;
}

/**
 * A seed lookup value that matches no record's natural key in the target object's seed (drafts ⊕
 * published). Targets with no seed are not judged: their rows come from elsewhere — except platform
 * objects (a `user` field's sys_user), which hold no rows but what seeds write. A UUID is not
 * judged either: it is a row id (the seed writer falls back to ids), never a natural-key typo.
 * `{externalId: …}` wrapper objects never resolve (commit 86bda82).
 */
const ROW_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export default defineRule({
  meta: {
    name: 'seed-reference-resolves',
    codes: ['unresolved_seed_reference'],
    docs: "Seed lookup values match a natural key of the target object's seeded records.",
  },
  // The stored seeds of every object a seeded lookup field points at (what naturalKeys reads).
  *seedKeys(graph): Iterable<SeedKeysRequest> {
    const targets = new Set<string>();
    for (const seed of graph.seeds.values()) {
      const object = seed.invalid ? undefined : graph.objects.get(seed.object);
      if (!object || object.invalid) continue;
      for (const f of object.fields.values()) {
        const target = RELATION_TYPES.has(f.def.type) ? referenceOf(f.def) : undefined;
        if (target !== undefined) targets.add(target);
      }
    }
    for (const target of targets) for (const s of keySeeds(graph, target)) if (s.stored !== undefined) yield { seed: s, field: keyField(s) };
  },
  seedPass(graph, context) {
    const cache = new Map<string, { keys: ReadonlySet<string>; by: string } | null>();
    // Whether a value is no finding: its target is not judged, it matches a natural key, or it is a row id.
    const fine = (field: FieldNode, v: unknown) => {
      const nk = naturalKeys(graph, referenceOf(field.def)!, cache, context);
      return !nk || ((typeof v === 'string' || typeof v === 'number') && nk.keys.has(String(v))) || (typeof v === 'string' && ROW_ID.test(v));
    };
    return (seed, emit) => {
      const walk = seedValueWalker(
        graph,
        seed,
        (f) => RELATION_TYPES.has(f.def.type) && referenceOf(f.def) !== undefined,
        fine,
        (sv) => {
          const target = referenceOf(sv.field.def)!;
          const nk = naturalKeys(graph, target, cache, context);
          if (!nk) return;
          const v = sv.value;
          if ((typeof v === 'string' || typeof v === 'number') && nk.keys.has(String(v))) return;
          if (typeof v === 'string' && ROW_ID.test(v)) return;
          const path = sv.path();
          const wrapped = typeof v === 'object';
          const s = typeof v === 'string' ? suggest(v, nk.keys, path) : {};
          const who = `Seed ${q(sv.seed.name)} record ${sv.record} sets lookup ${q(sv.key)}`;
          emit({
            code: 'unresolved_seed_reference',
            artifact: { type: 'seed', name: sv.seed.name },
            ref: { type: 'object', name: target, member: sv.key },
            message: wrapped
              ? `${who} to an object (${JSON.stringify(v).slice(0, 60)}); lookup values must be the target record's natural-key string, so this never resolves.`
              : nk.keys.size === 0
                ? `${who} to ${q(v)}, but no seed writes ${q(target)} records: ${q(target)} is provided by the platform and holds no rows where the build is published, so the publish writes the record with ${q(sv.key)} empty.`
                : `${who} to ${q(v)}, which matches no ${q(target)} record by its natural key ${q(nk.by)} (seeded keys: ${listing(nk.keys)}).${didYouMeanText(s.suggestions)}`,
            fix: wrapped
              ? `Write the target's ${q(nk.by)} value as a plain string.`
              : nk.keys.size === 0
                ? `Add a ${q(target)} seed with a record whose ${nk.by} is ${q(v)}, or leave ${q(sv.key)} out of the record and set it after publish.`
                : `Use the ${q(nk.by)} of an existing ${q(target)} record, or add a ${q(target)} record with ${nk.by} ${q(v)} to its seed.`,
            path,
            ...s,
          });
        },
      );
      return walk && { records: walk };
    };
  },
});
