import { BuildIssueSchema, CATALOGUE } from '@bvl/build-issue';
import { buildGraph, collectStack } from '@bvl/metadata';
import { CORPUS_NAMES, corpusDoc, exampleDoc, fixtureDoc, propertyRuns } from '@bvl/test-support';
import { describeCorpora } from '@bvl/test-support/vitest';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lintGraph } from './lint-graph.ts';

type Json = unknown;
/** Every [container, key] pair inside a JSON value (iteratively). */
function slots(root: Json): Array<[Record<string, Json> | Json[], string | number]> {
  const out: Array<[Record<string, Json> | Json[], string | number]> = [];
  const stack: Json[] = [root];
  while (stack.length) {
    const v = stack.pop();
    if (Array.isArray(v))
      v.forEach((c, i) => {
        out.push([v, i]);
        stack.push(c);
      });
    else if (v && typeof v === 'object')
      for (const [k, c] of Object.entries(v)) {
        out.push([v as Record<string, Json>, k]);
        stack.push(c);
      }
  }
  return out;
}

const deep = (n: number): Json => {
  let v: Json = { leaf: true };
  for (let i = 0; i < n; i++) v = { children: [v], type: 'group', id: `g${i}` };
  return v;
};

/** A mutation: what to put in place of a slot's value. */
const mutation = fc.oneof(
  fc.constant({ kind: 'delete' as const }),
  fc.constant({ kind: 'rename' as const }),
  fc.record({
    kind: fc.constant('set' as const),
    value: fc.oneof(
      fc.constant(null),
      fc.integer(),
      fc.boolean(),
      fc.string(),
      fc.constant([]),
      fc.constant({}),
      fc.constant('x'.repeat(100_000)),
      fc.constant("'; DROP TABLE x; --"),
      fc.constant(deep(200)),
    ),
  }),
);

/** Random mutations of each document never make L1 throw, and every issue is a valid catalogue issue. */
function survivesMutation(docs: Array<() => Json>, runs: { numRuns: number; seed: number }): void {
  fc.assert(
    fc.property(fc.nat(), fc.array(fc.tuple(fc.nat(), mutation), { minLength: 1, maxLength: 8 }), (which, muts) => {
      const doc = docs[which % docs.length]!();
      for (const [at, m] of muts) {
        const slotsNow = slots(doc);
        const [container, key] = slotsNow[at % slotsNow.length]!;
        if (m.kind === 'delete') {
          if (Array.isArray(container)) container.splice(key as number, 1);
          else delete container[key as string];
        } else if (m.kind === 'rename') {
          const v = (container as Record<string | number, Json>)[key];
          (container as Record<string | number, Json>)[key] = typeof v === 'string' ? `${v}_x` : v;
        } else (container as Record<string | number, Json>)[key] = structuredClone(m.value); // a fresh copy: shared instances could form cycles
      }
      const { graph, issues } = buildGraph(collectStack(doc));
      for (const i of [...issues, ...lintGraph(graph)]) {
        expect(BuildIssueSchema.safeParse(i).success).toBe(true);
        expect(Object.hasOwn(CATALOGUE, i.code)).toBe(true);
        expect(i.artifact.type).not.toBe('stack'); // a rule crash would surface as artifact type 'stack'
      }
    }),
    runs,
  );
}

describe('L1 under random mutation', () => {
  it('of the fixtures and the example app: never throws, always emits schema-valid catalogue issues', () => {
    survivesMutation(
      [() => fixtureDoc('field-service'), () => exampleDoc('app'), () => ({ ...exampleDoc('app'), ...exampleDoc('drafts') })],
      propertyRuns(80, 1_000),
    );
  });

  it('reports a renamed reference in the field-service fixture, with the patch back', () => {
    const doc = fixtureDoc('field-service') as { dashboards: Array<{ widgets: Array<{ dataset: string }> }> };
    doc.dashboards[0]!.widgets[0]!.dataset = 'fs_job_metrix';
    const { graph } = buildGraph(collectStack(doc));
    const issues = lintGraph(graph);
    expect(issues.map((i) => i.code)).toEqual(['dangling_dataset']);
    expect(issues[0]!.patch).toEqual([{ op: 'replace', path: '/widgets/0/dataset', value: 'fs_job_metrics' }]);
  });
});

describeCorpora('L1 under random mutation of the corpora', () => {
  it('never throws and always emits schema-valid catalogue issues', () => {
    survivesMutation(
      CORPUS_NAMES.map((name) => () => corpusDoc(name)),
      propertyRuns(50, 600),
    );
  });

  it('reports a renamed reference in the showcase corpus', () => {
    const doc = corpusDoc('app-showcase') as { dashboards: Array<{ widgets: Array<{ dataset: string }> }> };
    doc.dashboards[0]!.widgets[0]!.dataset = 'showcase_task_metrix';
    const { graph } = buildGraph(collectStack(doc));
    const issues = lintGraph(graph);
    expect(issues.map((i) => i.code)).toEqual(['dangling_dataset']);
    expect(issues[0]!.patch).toEqual([{ op: 'replace', path: '/widgets/0/dataset', value: 'showcase_task_metrics' }]);
  });
});
