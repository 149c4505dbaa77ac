import { buildGraph, collectStack, type Graph, readSource } from '@bvl/metadata';
import { CORPUS_NAMES, corpusDoc, EXAMPLE_DIR, FIXTURE_COUNTS, FIXTURE_NAMES, fixtureDoc, generateStack } from '@bvl/test-support';
import { describeCorpora } from '@bvl/test-support/vitest';
import { describe, expect, it } from 'vitest';
import { lintGraph } from './lint-graph.ts';

/** What a graph holds, counted as the fixtures and the corpus README count it. */
function counts(graph: Graph) {
  return {
    objects: [...graph.objects.values()].filter((o) => !o.platform).length,
    views: graph.views.size,
    dashboards: graph.dashboards.size,
    widgets: [...graph.dashboards.values()].reduce((n, d) => n + d.widgets.length, 0),
    datasets: graph.datasets.size,
    apps: graph.apps.size,
    seeds: graph.seeds.size,
    records: [...graph.seeds.values()].reduce((n, s) => n + s.def.records.length, 0),
  };
}

describe.each(FIXTURE_NAMES)('fixture %s', (name) => {
  const { graph, issues } = buildGraph(collectStack(fixtureDoc(name), { file: `${name}.stack.json` }));

  it('loads every artifact it holds', () => {
    expect(counts(graph)).toEqual(FIXTURE_COUNTS[name]);
  });

  it('passes its schemas and L1 with no issue at all (no false positives on every shape the format allows)', () => {
    // System fields (created_at, owner_id), platform objects (sys_user, sys_business_unit and its
    // seed), legacy spellings, view items and overlays, filter broadcasting with filterBindings.
    expect([...issues, ...lintGraph(graph)]).toEqual([]);
  });
});

describe('the example app and a generated stack', () => {
  it('examples/expense-tracker/app is clean', async () => {
    const { graph, issues } = buildGraph(await readSource(`${EXAMPLE_DIR}/app`));
    expect(counts(graph)).toEqual({ objects: 3, views: 5, dashboards: 1, widgets: 4, datasets: 1, apps: 1, seeds: 3, records: 9 });
    expect([...issues, ...lintGraph(graph)]).toEqual([]);
  });

  it('a generated 2k-artifact stack is clean', () => {
    const set = collectStack(generateStack(2_000));
    expect(set.artifacts.length).toBeGreaterThan(1_900);
    const { graph, issues } = buildGraph(set);
    expect([...issues, ...lintGraph(graph)]).toEqual([]);
  });
});

/** The counts the corpus README states (views are expanded view items, widgets and records summed). */
const EXPECTED = {
  'app-todo': { objects: 1, views: 3, dashboards: 1, widgets: 8, datasets: 1, apps: 1, seeds: 1, records: 8 },
  'app-crm': { objects: 6, views: 13, dashboards: 1, widgets: 6, datasets: 1, apps: 1, seeds: 5, records: 28 },
  'app-showcase': { objects: 24, views: 36, dashboards: 3, widgets: 37, datasets: 4, apps: 1, seeds: 19, records: 132 },
} as const;

describeCorpora('corpora load and lint clean', () => {
  describe.each(CORPUS_NAMES)('corpus %s', (name) => {
    const { graph, issues } = buildGraph(collectStack(corpusDoc(name), { file: `${name}.stack.json` }));

    it('loads every artifact the README counts', () => {
      expect(counts(graph)).toEqual(EXPECTED[name]);
    });

    it('passes its schemas and L1 with no issue at all (no false positives on a real stack)', () => {
      // None of the three corpora has an L1 defect: every reference, field, option value and seed
      // lookup resolves once system fields, platform objects (sys_user, sys_business_unit), legacy
      // spellings and filter broadcasting are understood.
      expect([...issues, ...lintGraph(graph)]).toEqual([]);
    });
  });
});
