import { buildGraph, collectStack, type Graph } from '@bvl/metadata';
import { describe, expect, it } from 'vitest';
import type { SeedRecord } from './define-rule.ts';
import { lintGraph, lintGraphStreamed, MAX_ISSUES_PER_ARTIFACT_CODE, type SeedRecordSource } from './lint-graph.ts';
import { baseStack } from './rule-tester.ts';
import { SEED_DEFECT_CODES, seedDefects } from './seed-defects.ts';

/** Every seed of the graph read in parts of `size` records, as a stored seed is read by cursor. */
function streamedSeeds(graph: Graph, size: number): Map<string, SeedRecordSource> {
  const out = new Map<string, SeedRecordSource>();
  for (const seed of graph.seeds.values()) {
    const records: readonly SeedRecord[] = seed.def.records;
    out.set(seed.name, async function* () {
      for (let at = 0; at < records.length; at += size) yield records.slice(at, at + size);
    });
  }
  return out;
}

const graphs: Array<[string, () => Graph]> = [
  [
    'published',
    () => {
      const s = baseStack();
      seedDefects(s);
      return buildGraph(collectStack(s)).graph;
    },
  ],
  [
    'staged as drafts',
    () => {
      const drafts = baseStack();
      seedDefects(drafts);
      return buildGraph(collectStack(baseStack()), collectStack(drafts, { draft: true })).graph;
    },
  ],
];

describe('lintGraphStreamed', () => {
  it.each(graphs)('finds what lintGraph finds, in the same order, with every seed read in parts (%s)', async (_, make) => {
    const graph = make();
    const whole = lintGraph(graph);
    const codes = new Set(whole.filter((i) => i.artifact.type === 'seed').map((i) => i.code));
    for (const code of SEED_DEFECT_CODES) expect(codes, code).toContain(code);
    // The listed bound cut a streamed seed's findings: the count issue is part of what must match.
    expect(whole.some((i) => i.message.includes(`issues like the ${MAX_ISSUES_PER_ARTIFACT_CODE} listed`))).toBe(true);
    const json = JSON.stringify(whole);
    for (const size of [1, 2, 3, 7, 64, 1_000_000])
      expect(JSON.stringify(await lintGraphStreamed(graph, streamedSeeds(graph, size))), `parts of ${size}`).toBe(json);
  });

  it('reads only the seeds it is given and keeps the record indices of each part', async () => {
    const graph = graphs[0]![1]();
    const all = streamedSeeds(graph, 4);
    const one = new Map([['exp_expense', all.get('exp_expense')!]]);
    expect(JSON.stringify(await lintGraphStreamed(graph, one))).toBe(JSON.stringify(lintGraph(graph)));
  });

  it('reports a seed pass that throws as the rule crashing, once, as lintGraph would', async () => {
    const graph = graphs[0]![1]();
    const failing = new Map<string, SeedRecordSource>([
      [
        'exp_expense',
        async function* () {
          yield [{ code: 'E-900', title: 'ok' }];
          yield [null as unknown as SeedRecord];
        },
      ],
    ]);
    const issues = await lintGraphStreamed(graph, failing);
    const crashes = issues.filter((i) => i.code === 'invalid_artifact' && i.artifact.type === 'stack');
    expect(crashes.length).toBeGreaterThan(0);
    expect(new Set(crashes.map((i) => i.artifact.name)).size).toBe(crashes.length);
  });
});
