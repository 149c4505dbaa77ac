// Test support: graphs of the repository's fixtures, of the shared corpora (when present) and of small inline stacks.
import { buildGraph, collectStack, type Graph } from '@bvl/metadata';
import { type CorpusName, corpusDoc, corpusFile, type FixtureName, fixtureDoc, fixtureFile } from '@bvl/test-support';

/** The graph of a repository fixture. */
export function fixture(name: FixtureName): Graph {
  return buildGraph(collectStack(fixtureDoc(name), { file: fixtureFile(name) })).graph;
}

/** The graph of a shared corpus stack (only inside describeCorpora). */
export function corpus(name: CorpusName): Graph {
  return buildGraph(collectStack(corpusDoc(name), { file: corpusFile(name) })).graph;
}

/** The graph of an inline stack document. */
export function graphOf(doc: unknown): Graph {
  return buildGraph(collectStack(doc)).graph;
}

/** A small app: an object with a seed, a list view, a dataset and a dashboard with two widgets. */
export const SMALL = {
  objects: [{ name: 'exp', fields: { title: { type: 'text' }, amount: { type: 'currency' }, status: { type: 'select', options: ['draft', 'paid'] } } }],
  views: [
    {
      list: {
        type: 'grid',
        data: { provider: 'object', object: 'exp' },
        columns: ['title', 'amount'],
        sort: 'amount desc',
        filter: [{ field: 'status', operator: 'equals', value: 'paid' }],
      },
    },
  ],
  datasets: [
    {
      name: 'exp_metrics',
      object: 'exp',
      dimensions: [{ name: 'status', field: 'status' }],
      measures: [
        { name: 'total', aggregate: 'sum', field: 'amount' },
        { name: 'n', aggregate: 'count' },
      ],
    },
  ],
  dashboards: [
    {
      name: 'spending',
      label: 'Spending',
      widgets: [
        { id: 'total', type: 'metric', dataset: 'exp_metrics', values: ['total'] },
        { id: 'by_status', type: 'bar', dataset: 'exp_metrics', dimensions: ['status'], values: ['n'], filter: { status: 'archived' } },
      ],
    },
  ],
  data: [
    {
      object: 'exp',
      externalId: 'title',
      records: [
        { title: 'a', amount: 1, status: 'paid' },
        { title: 'b', amount: 'abc' },
        { title: 'c', amount: 3 },
      ],
    },
  ],
};
