import { BuildIssueSchema } from '@bvl/build-issue';
import { buildGraph, collectStack, type ObjectNode } from '@bvl/metadata';
import { CORPUS_NAMES, FIXTURE_NAMES } from '@bvl/test-support';
import { describeCorpora } from '@bvl/test-support/vitest';
import { describe, expect, it } from 'vitest';
import { corpusGraph, fixtureGraph } from '../test/corpora.ts';
import { checkInertFields } from './check-inert-fields.ts';

const objectWith = (field: Record<string, unknown>, draft = false): ObjectNode => {
  const { graph } = buildGraph(collectStack({ objects: [{ name: 'exp_thing', fields: { f: field } }] }, { draft }));
  return graph.objects.get('exp_thing') as ObjectNode;
};

const valid: ReadonlyArray<{ name: string; field: Record<string, unknown> }> = [
  { name: 'select with options', field: { type: 'select', options: [{ label: 'A', value: 'a' }] } },
  { name: 'select with bare options', field: { type: 'select', options: ['a'] } },
  { name: 'radio with options', field: { type: 'radio', options: ['a', 'b'] } },
  { name: 'multiselect without options (a deliberate non-rule)', field: { type: 'multiselect' } },
  { name: 'checkboxes without options: free-form tags too', field: { type: 'checkboxes' } },
  { name: 'a multi-value select without options: free-form tags, not inert', field: { type: 'select', multiple: true } },
  { name: 'lookup with reference', field: { type: 'lookup', reference: 'sys_user' } },
  { name: 'user without reference (it is sys_user)', field: { type: 'user' } },
  { name: 'formula with a CEL envelope', field: { type: 'formula', expression: { dialect: 'cel', source: 'record.a + 1' } } },
  { name: 'formula with a string expression', field: { type: 'formula', expression: 'a + 1' } },
  { name: 'summary with operations', field: { type: 'summary', summaryOperations: { object: 'o', field: 'f', function: 'sum' } } },
  { name: 'text', field: { type: 'text' } },
];

const invalid: ReadonlyArray<{ name: string; field: Record<string, unknown>; message: RegExp }> = [
  { name: 'select without options', field: { type: 'select' }, message: /a select that has no options/ },
  { name: 'select with an empty options list', field: { type: 'select', options: [] }, message: /no options/ },
  { name: 'radio without options', field: { type: 'radio' }, message: /a radio that has no options/ },
  { name: 'lookup without reference', field: { type: 'lookup' }, message: /a lookup that has no reference/ },
  { name: 'master_detail with an empty reference', field: { type: 'master_detail', reference: '' }, message: /a master_detail that has no reference/ },
  { name: 'formula without expression', field: { type: 'formula' }, message: /a formula that has no expression/ },
  { name: 'formula with an empty CEL source', field: { type: 'formula', expression: { dialect: 'cel', source: ' ' } }, message: /no expression/ },
  { name: 'summary without summaryOperations', field: { type: 'summary' }, message: /a summary that has no summaryOperations/ },
];

describe('checkInertFields', () => {
  it.each(valid)('valid: $name', ({ field }) => expect(checkInertFields(objectWith(field))).toEqual([]));

  it.each(invalid)('invalid: $name', ({ field, message }) => {
    const issues = checkInertFields(objectWith(field));
    expect(issues).toHaveLength(1);
    const issue = issues[0]!;
    expect(BuildIssueSchema.parse(issue)).toEqual(issue);
    expect(issue).toMatchObject({
      layer: 'render',
      code: 'inert_field',
      artifact: { type: 'object', name: 'exp_thing' },
      ref: { type: 'object', name: 'exp_thing', member: 'f' },
      path: '/fields/f',
    });
    expect(issue.message).toMatch(message);
    expect(issue.message).toContain('Field "f" of object "exp_thing"');
    expect(issue.fix).toContain('"f"');
  });

  it('draft objects give draft issues', () => {
    expect(checkInertFields(objectWith({ type: 'select' }, true))[0]?.draft).toBe(true);
  });

  it('skips platform objects and fields that failed their own schema (L1 reports those)', () => {
    const { graph } = buildGraph(collectStack({ objects: [{ name: 'exp_thing', fields: { f: { type: 'no_such_type' } } }] }));
    expect(checkInertFields(graph.objects.get('exp_thing') as ObjectNode)).toEqual([]);
    expect(checkInertFields(graph.objects.get('sys_user') as ObjectNode)).toEqual([]);
  });

  it.each(FIXTURE_NAMES)('fixture %s (every field type) has no inert field', (name) => {
    const graph = fixtureGraph(name);
    expect([...graph.objects.values()].flatMap(checkInertFields)).toEqual([]);
  });
});

describeCorpora('checkInertFields on the corpora', () => {
  it.each(CORPUS_NAMES)('%s has no inert field', (corpus) => {
    const graph = corpusGraph(corpus);
    expect([...graph.objects.values()].flatMap(checkInertFields)).toEqual([]);
  });
});
