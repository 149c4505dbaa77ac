// Test support: the in-repo example app (examples/expense-tracker), which every clone has.
import { join } from 'node:path';
import { buildGraph, type Graph, readSource } from '@bvl/metadata';

const APP = join(import.meta.dirname, '../../../examples/expense-tracker/app');

/** The graph of the published example app. */
export async function exampleGraph(): Promise<Graph> {
  return buildGraph(await readSource(APP)).graph;
}
