// Test support: graphs of the repository's fixtures and of the shared corpora (when present).
import { buildGraph, collectStack, type Graph } from '@bvl/metadata';
import { type CorpusName, corpusDoc, type FixtureName, fixtureDoc } from '@bvl/test-support';

/** The graph of a stack document. */
export function graphOf(doc: unknown, draft = false): Graph {
  return buildGraph(collectStack(doc, { draft })).graph;
}

/** The graph of a repository fixture. */
export function fixtureGraph(name: FixtureName): Graph {
  return graphOf(fixtureDoc(name));
}

/** The graph of a shared corpus stack (only inside describeCorpora). */
export function corpusGraph(name: CorpusName): Graph {
  return graphOf(corpusDoc(name));
}
