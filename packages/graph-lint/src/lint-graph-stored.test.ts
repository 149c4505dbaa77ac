import { type ArtifactSet, buildGraph, collectStack, type SeedNode, StoredRecords } from '@bvl/metadata';
import { describe, expect, it } from 'vitest';
import type { SeedRecord } from './define-rule.ts';
import { lintGraph, lintGraphStreamed, type SeedRecordSource, StoredSeedChanged } from './lint-graph.ts';
import { baseStack } from './rule-tester.ts';
import { SEED_DEFECT_CODES, seedDefects } from './seed-defects.ts';

// A stored seed (issue 21): its body's record list is a StoredRecords (a count and a handle), its
// node holds no records, and a streamed lint reads them from a source — the records as the store
// would give them. Every finding must be the one the records held whole give.

/** The set with every seed's record list (records, data or rows) replaced by a StoredRecords whose handle is the list itself (`which` picks the seeds). */
function stored(set: ArtifactSet, which: (name: string) => boolean = () => true): ArtifactSet {
  return {
    ...set,
    artifacts: set.artifacts.map((a) => {
      if (a.type !== 'seed' || !which(a.name)) return a;
      const body = a.body as Record<string, unknown>;
      const key = body.records != null ? 'records' : body.data != null ? 'data' : 'rows';
      const list = body[key];
      if (!Array.isArray(list)) return a;
      return { ...a, body: { ...body, [key]: new StoredRecords(list.length, list) } };
    }),
  };
}

/** A stored seed's records (its handle) in parts of `size`; counts the reads. */
function sources(size: number, reads: { n: number } = { n: 0 }): (seed: SeedNode) => SeedRecordSource | undefined {
  return (seed) => {
    if (seed.stored === undefined) return undefined;
    const records = seed.stored as readonly SeedRecord[];
    return async function* () {
      reads.n++;
      for (let at = 0; at < records.length; at += size) yield records.slice(at, at + size);
    };
  };
}

/**
 * A stored seed's records as a source honouring a projection: asked for `fields`, each record holds
 * only those of its fields it has (what the platform's cursor sends then); `asked` records each call's fields.
 */
function projecting(size: number, asked: Array<readonly string[] | undefined>): (seed: SeedNode) => SeedRecordSource | undefined {
  return (seed) => {
    if (seed.stored === undefined) return undefined;
    const records = seed.stored as readonly SeedRecord[];
    return async function* (fields?: readonly string[]) {
      asked.push(fields);
      const pick = (r: SeedRecord): SeedRecord => {
        if (fields === undefined) return r;
        const out: Record<string, unknown> = {};
        for (const f of fields) if (Object.hasOwn(r, f)) out[f] = r[f];
        return out;
      };
      for (let at = 0; at < records.length; at += size) yield records.slice(at, at + size).map(pick);
    };
  };
}

const defects = (draft: boolean) => {
  const s = baseStack();
  seedDefects(s);
  // Records under each key a seed may hold them.
  const report = s.data.find((d) => d.object === 'exp_report');
  report.data = report.records;
  delete report.records;
  const insert = s.data.find((d) => d.mode === 'insert');
  insert.rows = insert.records;
  delete insert.records;
  return collectStack(s, draft ? { draft: true } : {});
};

const cases: Array<[string, () => { published: ArtifactSet; drafts?: ArtifactSet }, (name: string) => boolean]> = [
  ['published, every seed stored', () => ({ published: defects(false) }), () => true],
  // Drafts over published seeds: the replaced published seeds are lookup targets too (their keys read from their own source).
  ['staged over published, every seed stored', () => ({ published: collectStack(baseStack()), drafts: defects(true) }), () => true],
  // Lookups into stored targets from held seeds, and the other way round.
  ['published, only the lookup targets stored', () => ({ published: defects(false) }), (n) => !n.startsWith('exp_expense')],
  ['published, only the seeds with lookups stored', () => ({ published: defects(false) }), (n) => n.startsWith('exp_expense')],
];

describe('lintGraphStreamed over stored seeds', () => {
  it.each(cases)('finds what lintGraph finds over the records held, parts of 1, 2, 5 and 5,000 (%s)', async (_, make, which) => {
    const { published, drafts } = make();
    const held = buildGraph(published, drafts).graph;
    const whole = lintGraph(held);
    const codes = new Set(whole.map((i) => i.code));
    for (const code of SEED_DEFECT_CODES) expect(codes, code).toContain(code);
    const json = JSON.stringify(whole);
    const graph = buildGraph(stored(published, which), drafts && stored(drafts, which)).graph;
    const storedSeeds = [...graph.seeds.values(), ...[...graph.priorSeedsByObject.values()].flat()].filter((s) => s.stored !== undefined);
    expect(storedSeeds.length).toBeGreaterThan(0);
    for (const s of storedSeeds) {
      expect(s.def.records).toEqual([]);
      expect(s.recordCount).toBe((s.stored as unknown[]).length);
    }
    for (const size of [1, 2, 5, 5_000]) {
      const reads = { n: 0 };
      expect(JSON.stringify(await lintGraphStreamed(graph, sources(size, reads))), `parts of ${size}`).toBe(json);
      expect(reads.n).toBeGreaterThan(0);
    }
  });

  it.each(cases)('finds the same when the read ahead is handed only the fields its keys read (%s)', async (_, make, which) => {
    const { published, drafts } = make();
    const json = JSON.stringify(lintGraph(buildGraph(published, drafts).graph));
    const graph = buildGraph(stored(published, which), drafts && stored(drafts, which)).graph;
    // Only a lookup target's natural keys are read ahead (the seeds with lookups read them); a
    // seed's repeats are answered in the read of its passes.
    const targetsStored = [...graph.seeds.values()].some((s) => s.stored !== undefined && !s.name.startsWith('exp_expense'));
    for (const size of [1, 5_000]) {
      const asked: Array<readonly string[] | undefined> = [];
      expect(JSON.stringify(await lintGraphStreamed(graph, projecting(size, asked))), `parts of ${size}`).toBe(json);
      // The read ahead asked for a projection; the passes for whole records.
      expect(asked.some((f) => f !== undefined)).toBe(targetsStored);
      expect(asked.some((f) => f === undefined)).toBe(true);
    }
  });

  it('a projected read ahead keeps the findings of keys missing, null, a number, an object, a list, CEL, and the id fallback', async () => {
    const s = baseStack();
    s.objects.find((o) => o.name === 'exp_category').fields.tag = { type: 'text', unique: true };
    const keys: unknown[] = [undefined, null, 7, '7', { a: 1 }, { a: 1 }, [1, 2], [1, 2], true, true, { dialect: 'cel', source: 'now()' }, 'K', 'K', 7];
    const records = keys.map((k, i) => {
      const r: Record<string, unknown> = { budget: i, tag: k === undefined ? `T-${i}` : k };
      if (k !== undefined) r.name = k;
      // The id fallback: a lookup may name a record by its id.
      if (i % 3 === 0) r.id = i % 2 ? `id-${i}` : i;
      return r;
    });
    s.data.push(
      { object: 'exp_category', externalId: 'name', records },
      { object: 'exp_category', externalId: ['name', 'budget'], mode: 'update', records: records.map((r) => ({ ...r, budget: 1 })) },
    );
    const expense = s.data.find((d) => d.object === 'exp_expense');
    expense.records.push(
      ...['id-3', 0, '0', 6, 'id-9', 'K', '7', 7, 'nope', 'id-4'].map((category, i) => ({ code: `L-${i}`, title: 'Lookup', amount: 1, category })),
    );
    const published = collectStack(s);
    const whole = lintGraph(buildGraph(published).graph);
    expect(whole.some((i) => i.code === 'seed_duplicate_key')).toBe(true);
    expect(whole.some((i) => i.code === 'unresolved_seed_reference')).toBe(true);
    expect(whole.some((i) => i.code === 'seed_value_invalid' && i.message.includes('unique'))).toBe(true);
    const graph = buildGraph(stored(published)).graph;
    for (const size of [1, 4, 5_000]) {
      const asked: Array<readonly string[] | undefined> = [];
      expect(JSON.stringify(await lintGraphStreamed(graph, projecting(size, asked))), `parts of ${size}`).toBe(JSON.stringify(whole));
      expect(asked).toContainEqual(['budget', 'id', 'name', 'tag']);
    }
  });

  it('settles keys whose hashes collide on the keys themselves: duplicate keys and unique values', async () => {
    // FNV-1a pairs: `sK-74354` and `sK-507580` (a single string key's text), `U-208216` and `U-1541200` (a unique value's).
    const s = baseStack();
    s.objects.find((o) => o.name === 'exp_category').fields.tag = { type: 'text', unique: true };
    s.data.push({
      object: 'exp_category',
      externalId: 'name',
      records: [
        { name: 'K-74354', tag: 'U-208216' },
        { name: 'K-507580', tag: 'U-1541200' },
        { name: 'K-1', tag: 'U-1' },
        { name: 'K-74354', tag: 'U-2' },
        { name: 'K-2', tag: 'U-1541200' },
      ],
    });
    const published = collectStack(s);
    const whole = lintGraph(buildGraph(published).graph);
    const found = whole.filter((i) => i.message.includes('K-74354') || i.message.includes('U-1541200'));
    expect(found.map((i) => i.code).sort()).toEqual(['seed_duplicate_key', 'seed_value_invalid']);
    const graph = buildGraph(stored(published)).graph;
    for (const size of [1, 2, 5_000]) expect(JSON.stringify(await lintGraphStreamed(graph, sources(size))), `parts of ${size}`).toBe(JSON.stringify(whole));
  });

  it("answers a seed's repeats in the read of its passes: read once when no key repeats, again when one does", async () => {
    const onlyExpenses = (name: string) => name.startsWith('exp_expense');
    const clean = collectStack(baseStack());
    const reads = { n: 0 };
    const graph = buildGraph(stored(clean, onlyExpenses)).graph;
    expect(JSON.stringify(await lintGraphStreamed(graph, sources(2, reads)))).toBe(JSON.stringify(lintGraph(buildGraph(clean).graph)));
    expect(reads.n).toBe(1);
    const s = baseStack();
    const expenses = s.data.find((d) => d.object === 'exp_expense');
    expenses.records.push({ ...expenses.records[0], title: 'Taxi again' });
    const repeating = collectStack(s);
    const whole = lintGraph(buildGraph(repeating).graph);
    expect(whole.some((i) => i.code === 'seed_duplicate_key')).toBe(true);
    reads.n = 0;
    expect(JSON.stringify(await lintGraphStreamed(buildGraph(stored(repeating, onlyExpenses)).graph, sources(2, reads)))).toBe(JSON.stringify(whole));
    expect(reads.n).toBe(2);
  });

  it("keeps each rule's repeats questions apart: a unique field named like another rule's question", async () => {
    // seed-duplicate-keys asks its question as "key"; seed-value-contract asks one per unique field, by the field's name.
    const s = baseStack();
    for (const name of ['exp_expense', 'exp_category']) {
      s.objects.find((o) => o.name === name).fields.key = { type: 'text', unique: true };
      const seed = s.data.find((d) => d.object === name);
      seed.records.forEach((r: Record<string, unknown>, i: number) => {
        r.key = i < 2 ? 'same' : `own-${i}`;
      });
    }
    const published = collectStack(s);
    const whole = lintGraph(buildGraph(published).graph);
    expect(
      whole
        .filter((i) => i.code === 'seed_value_invalid' && i.message.includes('unique'))
        .map((i) => i.artifact.name)
        .sort(),
    ).toEqual(['exp_category', 'exp_expense']);
    for (const which of [() => true, (n: string) => n.startsWith('exp_expense')])
      expect(JSON.stringify(await lintGraphStreamed(buildGraph(stored(published, which)).graph, sources(3)))).toBe(JSON.stringify(whole));
  });

  it('counts a stored seed by its count: the insert-mode and no-object messages', async () => {
    const published = defects(false);
    const graph = buildGraph(stored(published)).graph;
    const issues = await lintGraphStreamed(graph, sources(3));
    const insert = issues.find((i) => i.code === 'seed_insert_mode_replay');
    expect(insert?.message).toContain('its 2 record(s)');
    expect(issues.find((i) => i.code === 'dangling_object' && i.artifact.type === 'seed')?.message).toContain('loads 1 record(s)');
  });

  it('never judges a stored seed as empty: lintGraph without a source reports the rules crashing', () => {
    const graph = buildGraph(stored(defects(false))).graph;
    const issues = lintGraph(graph);
    expect(issues.some((i) => i.code === 'invalid_artifact' && i.artifact.type === 'stack' && i.message.includes('are stored, not held'))).toBe(true);
    expect(issues.some((i) => i.code === 'seed_duplicate_key')).toBe(false);
  });

  it('rejects when a stored seed gives fewer or more records than it counts (gone or changed while read)', async () => {
    const graph = buildGraph(stored(defects(false))).graph;
    for (const cut of [-1, 1]) {
      const short = (seed: SeedNode): SeedRecordSource | undefined => {
        const records = seed.stored as SeedRecord[] | undefined;
        if (!records) return undefined;
        return async function* () {
          yield cut < 0 ? records.slice(0, -1) : [...records, { name: 'extra' }];
        };
      };
      await expect(lintGraphStreamed(graph, short)).rejects.toBeInstanceOf(StoredSeedChanged);
    }
  });

  it('a JSON value shaped like the marker is a record list like any other, never a stored one', () => {
    const set = defects(false);
    const forged = {
      ...set,
      artifacts: set.artifacts.map((a) =>
        a.type === 'seed' && a.name.startsWith('exp_expense') ? { ...a, body: { ...(a.body as object), records: { count: 3, handle: 'x' } } } : a,
      ),
    };
    const graph = buildGraph(forged).graph;
    const seed = [...graph.seeds.values()].find((s) => s.name.startsWith('exp_expense'))!;
    expect(seed.stored).toBeUndefined();
    expect(seed.invalid).toBe(true);
  });
});
