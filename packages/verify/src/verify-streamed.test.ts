import { join } from 'node:path';
import { type ArtifactSet, readSource, type SeedNode, StoredRecords } from '@bvl/metadata';
import { describe, expect, it } from 'vitest';
import { verify, verifyStreamed } from './verify.ts';

const EXAMPLE = join(import.meta.dirname, '../../../examples/expense-tracker');

/** Every seed's record list replaced by a StoredRecords whose handle is the list, with defects added first. */
function storedWithDefects(set: ArtifactSet, stored: boolean): ArtifactSet {
  return {
    ...set,
    artifacts: set.artifacts.map((a) => {
      if (a.type !== 'seed') return a;
      const body = a.body as { records: Record<string, unknown>[] };
      const first = body.records[0]!;
      // A repeated key across the list and a field the object lacks.
      const records = [...body.records, { ...first, colour: 'red' }, ...Array.from({ length: 7 }, (_, i) => ({ ...first, note_x: i }))];
      return { ...a, body: { ...body, records: stored ? new StoredRecords(records.length, records) : records } };
    }),
  };
}

const parts = (size: number) => (seed: SeedNode) => {
  const records = seed.stored as Record<string, unknown>[] | undefined;
  return (
    records &&
    async function* () {
      for (let at = 0; at < records.length; at += size) yield records.slice(at, at + size);
    }
  );
};

describe('verifyStreamed', () => {
  it('gives what verify gives over the records held, with every seed stored and read in parts', async () => {
    const app = await readSource(join(EXAMPLE, 'app'));
    const drafts = await readSource(join(EXAMPLE, 'drafts'), { draft: true });
    const held = verify(storedWithDefects(app, false), drafts);
    expect(held.issues.some((i) => i.code === 'seed_duplicate_key')).toBe(true);
    expect(held.issues.some((i) => i.code === 'unknown_field' && i.artifact.type === 'seed')).toBe(true);
    for (const size of [1, 2, 5, 5_000]) {
      const streamed = await verifyStreamed(storedWithDefects(app, true), drafts, parts(size));
      expect(JSON.stringify(streamed.issues), `parts of ${size}`).toBe(JSON.stringify(held.issues));
      expect(streamed.checked).toEqual(held.checked);
      expect(streamed.publishable).toBe(held.publishable);
    }
  });
});
