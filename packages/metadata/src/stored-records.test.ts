import { describe, expect, it } from 'vitest';
import type { ArtifactSet, RawArtifact } from './artifact.ts';
import { buildGraph } from './graph.ts';
import { INPUT_LIMITS, setProblem } from './input-bounds.ts';
import { StoredRecords, storedRecordsOf } from './stored-records.ts';

const object: RawArtifact = { type: 'object', name: 'row', body: { name: 'row', fields: { code: { type: 'text' } } }, source: { pointer: '' }, draft: false };
const seed = (body: Record<string, unknown>, name = 'row'): RawArtifact => ({ type: 'seed', name, body, source: { pointer: '/data/0' }, draft: false });
const set = (...artifacts: RawArtifact[]): ArtifactSet => ({ artifacts, problems: [] });
const records = [{ code: 'A' }, { code: 'B' }, { code: 'C' }];

describe('a seed whose records are stored (StoredRecords)', () => {
  it.each(['records', 'data', 'rows'])('is a node with its count and handle and no records, under %s', (key) => {
    const handle = { where: 'the store' };
    const { graph, issues } = buildGraph(set(object, seed({ object: 'row', externalId: 'code', mode: 'ignore', [key]: new StoredRecords(3, handle) })));
    const node = graph.seeds.get('row')!;
    expect(issues).toEqual([]);
    expect(node).toMatchObject({ invalid: false, recordCount: 3, stored: handle, externalId: ['code'], mode: 'ignore', def: { records: [] } });
    // Held, the same node but for the records.
    const held = buildGraph(set(object, seed({ object: 'row', externalId: 'code', mode: 'ignore', [key]: records }))).graph.seeds.get('row')!;
    expect(held.recordCount).toBe(3);
    expect(held.stored).toBeUndefined();
  });

  it('fails its schema for what else is wrong, as the held seed does', () => {
    const bad = (list: unknown) => buildGraph(set(object, seed({ object: 'Not Snake', records: list }))).issues.map((i) => i.message);
    expect(bad(new StoredRecords(3, 'h'))).toEqual(bad(records));
    expect(buildGraph(set(object, seed({ object: 'Not Snake', records: new StoredRecords(3, 'h') }))).graph.seeds.get('row')).toMatchObject({
      invalid: true,
      recordCount: 0,
    });
  });

  it('cannot be forged by JSON: only an instance carries the brand', () => {
    const forged = JSON.parse(JSON.stringify(new StoredRecords(3, 'h')));
    expect(storedRecordsOf(forged)).toBeUndefined();
    expect(storedRecordsOf(new StoredRecords(3, 'h'))?.count).toBe(3);
    expect(buildGraph(set(object, seed({ object: 'row', records: forged }))).graph.seeds.get('row')?.invalid).toBe(true);
  });

  it('counts its records against the input bound', () => {
    expect(setProblem(set(object, seed({ object: 'row', records: new StoredRecords(INPUT_LIMITS.records, 'h') })))).toBeUndefined();
    expect(setProblem(set(object, seed({ object: 'row', records: new StoredRecords(INPUT_LIMITS.records + 1, 'h') })))).toContain('seed records');
  });
});
