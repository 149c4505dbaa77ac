import { readFileSync } from 'node:fs';
import { buildGraph, collectStack, type Graph } from '@bvl/metadata';

/** The three shared ObjectStack example stacks (read-only inputs). */
export const CORPORA = ['app-todo', 'app-crm', 'app-showcase'] as const;
export type CorpusName = (typeof CORPORA)[number];

const cache = new Map<CorpusName, unknown>();

/** The corpus stack document as parsed JSON (a fresh deep copy: callers may mutate it). */
export function corpusDoc(name: CorpusName): Record<string, unknown> {
  let doc = cache.get(name);
  if (doc === undefined) {
    doc = JSON.parse(readFileSync(new URL(`../../../../shared/corpora/objectstack/${name}.stack.json`, import.meta.url), 'utf8'));
    cache.set(name, doc);
  }
  return structuredClone(doc) as Record<string, unknown>;
}

/** The graph of a stack document. */
export function graphOf(doc: unknown, draft = false): Graph {
  return buildGraph(collectStack(doc, { draft })).graph;
}

/** The corpus graph. */
export function corpusGraph(name: CorpusName): Graph {
  return graphOf(corpusDoc(name));
}
