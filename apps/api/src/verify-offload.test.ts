import { collectStack } from '@bvl/metadata';
import { rememberBodyHash } from '@bvl/platform';
import { verify } from '@bvl/verify';
import { afterAll, describe, expect, it } from 'vitest';
import {
  bodiesSentToWorkers,
  configureVerifyWorkers,
  DEFAULT_VERIFY_WORKERS,
  OFFLOAD_WEIGHT,
  overlayWeight,
  TEST_MISSING,
  verifyOffloaded,
} from './verify-offload.ts';

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

describe('large stored bodies go to a worker once', () => {
  const wide = (n: number, extra: string) => ({
    fields: { ...Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, { type: 'text' }])), [extra]: { type: 'lookup', reference: 'nowhere' } },
  });
  /** An overlay whose object body is "stored" (named by its content hash, as readOverlayRows names what it read). */
  const overlay = (hash: string, extra: string) => {
    const drafts = collectStack({ objects: { wide: wide(OFFLOAD_WEIGHT, extra) } }, { draft: true });
    rememberBodyHash(drafts.artifacts[0]!.body, hash);
    return { published: collectStack({}, { draft: false }), drafts };
  };

  it('the same body is named by its hash the second time; a new body is sent; answers equal verify() here', async () => {
    configureVerifyWorkers(1);
    const a = overlay('hash-a', 'owner');
    const sent0 = bodiesSentToWorkers();
    const first = await verifyOffloaded(a.published, a.drafts);
    expect(bodiesSentToWorkers() - sent0).toBe(1);
    // The same stored body again (another read of it: another object, the same hash).
    const again = overlay('hash-a', 'owner');
    const second = await verifyOffloaded(again.published, again.drafts);
    expect(bodiesSentToWorkers() - sent0).toBe(1);
    const here = verify(a.published, a.drafts);
    for (const r of [first, second]) expect(r).toEqual({ issues: here.issues, checked: here.checked, publishable: here.publishable });
    // Another body (another hash) is sent, and answered for itself.
    const b = overlay('hash-b', 'manager');
    const third = await verifyOffloaded(b.published, b.drafts);
    expect(bodiesSentToWorkers() - sent0).toBe(2);
    expect(third.issues.map((i) => i.message).join('\n')).toContain('manager');
    expect(third.issues.map((i) => i.message).join('\n')).not.toContain('owner');
  });

  it('a worker that no longer holds a body it is named by gets the job again with the body', async () => {
    configureVerifyWorkers(1);
    const a = overlay('hash-c', 'owner');
    await verifyOffloaded(a.published, a.drafts);
    const sent0 = bodiesSentToWorkers();
    TEST_MISSING.next = true;
    const r = await verifyOffloaded(a.published, a.drafts);
    expect(bodiesSentToWorkers() - sent0).toBe(1);
    const here = verify(a.published, a.drafts);
    expect(r).toEqual({ issues: here.issues, checked: here.checked, publishable: here.publishable });
  });
});
