import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BuildIssueSchema, CATALOGUE } from '@bvl/build-issue';
import { buildGraph, collectStack } from '@bvl/metadata';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lintGraph } from './lint-graph.ts';

const CORPORA = join(import.meta.dirname, '../../../../shared/corpora/objectstack');
const docs = ['app-todo', 'app-crm', 'app-showcase'].map((n) => JSON.parse(readFileSync(join(CORPORA, `${n}.stack.json`), 'utf8')));

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

describe('L1 under random mutation of the corpora', () => {
  it('never throws and always emits schema-valid catalogue issues', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 }), fc.array(fc.tuple(fc.nat(), mutation), { minLength: 1, maxLength: 8 }), (which, muts) => {
        const doc = structuredClone(docs[which]);
        for (const [at, m] of muts) {
          const all = slots(doc);
          const [container, key] = all[at % all.length]!;
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
      { numRuns: 150 },
    );
  });

  it('reports a renamed reference in the showcase corpus', () => {
    const doc = structuredClone(docs[2]);
    doc.dashboards[0].widgets[0].dataset = 'showcase_task_metrix';
    const { graph } = buildGraph(collectStack(doc));
    const issues = lintGraph(graph);
    expect(issues.map((i) => i.code)).toEqual(['dangling_dataset']);
    expect(issues[0]!.patch).toEqual([{ op: 'replace', path: '/widgets/0/dataset', value: 'showcase_task_metrics' }]);
  });
});
