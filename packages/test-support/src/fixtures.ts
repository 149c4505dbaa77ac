// The repository's own stacks, which every suite can rely on in a plain clone.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './locate-corpora.mjs';

export { REPO_ROOT };

/**
 * Hand-written stacks in fixtures/. `field-service` is a tour of the format: every list view type
 * (grid, kanban, gallery, calendar, timeline, gantt, map, chart, tree) and form type, every widget
 * type, every field type, view containers, view items and flattened overlays, object listViews,
 * legacy spellings (objectName, "field desc" sorts, groups, seed key/data/rows), system fields and
 * platform objects, dashboard filter broadcasting with filterBindings, CEL seed values, composite
 * externalIds, env-scoped and ignore-mode seeds. It is clean: no L1, L2 or L3 issue.
 */
export const FIXTURE_NAMES = ['field-service'] as const;
export type FixtureName = (typeof FIXTURE_NAMES)[number];

/** What a fixture holds, as tests assert it (views expanded; widgets and records summed). */
export const FIXTURE_COUNTS: Record<
  FixtureName,
  { objects: number; views: number; dashboards: number; widgets: number; datasets: number; apps: number; seeds: number; records: number }
> = {
  'field-service': { objects: 7, views: 27, dashboards: 2, widgets: 26, datasets: 3, apps: 1, seeds: 8, records: 25 },
};

/** The path of a fixture's stack file. */
export function fixtureFile(name: FixtureName): string {
  return join(REPO_ROOT, 'packages/test-support/fixtures', `${name}.stack.json`);
}

const cache = new Map<FixtureName, unknown>();

/** A fixture's stack document, parsed (a fresh deep copy: callers may mutate it). */
export function fixtureDoc(name: FixtureName): Record<string, unknown> {
  let doc = cache.get(name);
  if (doc === undefined) {
    doc = JSON.parse(readFileSync(fixtureFile(name), 'utf8'));
    cache.set(name, doc);
  }
  return structuredClone(doc) as Record<string, unknown>;
}

/** examples/expense-tracker: the README's example app (`app/`) and the drafts an agent staged on it (`drafts/`). */
export const EXAMPLE_DIR = join(REPO_ROOT, 'examples/expense-tracker');

const FOLDER_KEYS = { objects: 'objects', views: 'views', dashboards: 'dashboards', datasets: 'datasets', apps: 'apps', seeds: 'data' } as const;

/** The example app's per-artifact folder as one stack document (a fresh copy), for tests that mutate a document. */
export function exampleDoc(part: 'app' | 'drafts' = 'app'): Record<string, unknown[]> {
  const doc: Record<string, unknown[]> = {};
  for (const [folder, key] of Object.entries(FOLDER_KEYS)) {
    const dir = join(EXAMPLE_DIR, part, folder);
    let files: string[];
    try {
      files = readdirSync(dir).filter((f) => f.endsWith('.json'));
    } catch {
      continue;
    }
    for (const f of files.sort()) (doc[key] ??= []).push(JSON.parse(readFileSync(join(dir, f), 'utf8')));
  }
  return doc;
}
