import { buildGraph, collectStack } from '@bvl/metadata';
import { describe, expect, it } from 'vitest';
import { lintGraph, MAX_ISSUES_PER_ARTIFACT_CODE } from './lint-graph.ts';

// The report stays a readable size however many records repeat one mistake.
describe('lintGraph bounds its output', () => {
  it('lists 100 issues per artifact and code and counts the rest in one', () => {
    const records = Array.from({ length: 5000 }, (_, i) => ({ name: `n${i}`, s: 'zz' }));
    const { graph } = buildGraph(
      collectStack({
        objects: [{ name: 'o', fields: { name: { type: 'text' }, s: { type: 'select', options: ['a', 'b'] } } }],
        data: [{ object: 'o', externalId: 'name', records }],
      }),
    );
    const issues = lintGraph(graph).filter((i) => i.code === 'seed_value_not_in_options');
    expect(issues).toHaveLength(MAX_ISSUES_PER_ARTIFACT_CODE + 1);
    expect(issues.at(-1)).toMatchObject({
      severity: 'error',
      artifact: { type: 'seed', name: 'o' },
      message: 'seed "o" has 4,900 more seed_value_not_in_options issues like the 100 listed; bvl lists at most 100 per artifact and code.',
    });
  });
});
