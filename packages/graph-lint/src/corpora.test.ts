import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildGraph, collectStack } from '@bvl/metadata';
import { describe, expect, it } from 'vitest';
import { lintGraph } from './lint-graph.ts';

const CORPORA = join(import.meta.dirname, '../../../../shared/corpora/objectstack');

/** The counts the corpus README states (views are expanded view items, widgets and records summed). */
const EXPECTED = {
  'app-todo': { objects: 1, views: 3, dashboards: 1, widgets: 8, datasets: 1, apps: 1, seeds: 1, records: 8 },
  'app-crm': { objects: 6, views: 13, dashboards: 1, widgets: 6, datasets: 1, apps: 1, seeds: 5, records: 28 },
  'app-showcase': { objects: 24, views: 36, dashboards: 3, widgets: 37, datasets: 4, apps: 1, seeds: 19, records: 132 },
} as const;

describe.each(Object.entries(EXPECTED))('corpus %s', (name, want) => {
  const doc = JSON.parse(readFileSync(join(CORPORA, `${name}.stack.json`), 'utf8'));
  const { graph, issues } = buildGraph(collectStack(doc, { file: `${name}.stack.json` }));

  it('loads every artifact the README counts', () => {
    const declared = [...graph.objects.values()].filter((o) => !o.platform);
    expect({
      objects: declared.length,
      views: graph.views.size,
      dashboards: graph.dashboards.size,
      widgets: [...graph.dashboards.values()].reduce((n, d) => n + d.widgets.length, 0),
      datasets: graph.datasets.size,
      apps: graph.apps.size,
      seeds: graph.seeds.size,
      records: [...graph.seeds.values()].reduce((n, s) => n + s.def.records.length, 0),
    }).toEqual(want);
  });

  it('passes its schemas and L1 with no issue at all (no false positives on a real stack)', () => {
    // None of the three corpora has an L1 defect: every reference, field, option value and seed
    // lookup resolves once system fields, platform objects (sys_user, sys_business_unit), legacy
    // spellings and filter broadcasting are understood.
    expect([...issues, ...lintGraph(graph)]).toEqual([]);
  });
});
