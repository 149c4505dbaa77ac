import { collectStack } from '@bvl/metadata';
import { verify } from '@bvl/verify';
import { afterAll, describe, expect, it } from 'vitest';
import { configureVerifyWorkers, DEFAULT_VERIFY_WORKERS, OFFLOAD_WEIGHT, overlayWeight, verifyOffloaded } from './verify-offload.ts';

afterAll(() => configureVerifyWorkers(DEFAULT_VERIFY_WORKERS));

describe('verifyOffloaded', () => {
  it('a large overlay verifies on a worker thread with the answer verify() gives here', async () => {
    configureVerifyWorkers(1);
    const fields = Object.fromEntries(Array.from({ length: OFFLOAD_WEIGHT }, (_, i) => [`f${i}`, { type: 'text' }]));
    const drafts = collectStack(
      {
        objects: { wide: { fields: { ...fields, owner: { type: 'lookup', reference: 'nowhere' } } } },
        views: { wide: { list: { type: 'grid', data: { provider: 'object', object: 'wide' }, columns: ['f1', 'missing'] } } },
      },
      { draft: true },
    );
    const published = collectStack({}, { draft: false });
    expect(overlayWeight(published, drafts)).toBeGreaterThanOrEqual(OFFLOAD_WEIGHT);
    const here = verify(published, drafts);
    const there = await verifyOffloaded(published, drafts);
    expect(there.issues.length).toBeGreaterThan(0);
    expect(there).toEqual({ issues: here.issues, checked: here.checked, publishable: here.publishable });
  });
});
