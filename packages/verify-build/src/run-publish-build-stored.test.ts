import { join } from 'node:path';
import { type ArtifactSet, readSource } from '@bvl/metadata';
import { type Platform, SEED_STREAM, seedStreamStats, stageDrafts } from '@bvl/platform';
import { openTestPlatform, tenants } from '@bvl/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatCardLine } from './format-card-text.ts';
import { publishBuild } from './run-publish-build.ts';

// Issue 21: a large stored seed is never held whole by a publish — the gate, the writer and the L3
// probes after it read its records part by part from the store. Every seed of the example is made
// "large" (SEED_STREAM.bytes lowered), so the whole loop runs on stored seeds; its answer must be the
// one it gives with the seeds held: the same rows, the same probes (each seed's expected rows counted
// over its stored records, none skipped), the same card.
const EXAMPLE = join(import.meta.dirname, '../../../examples/expense-tracker');
let platform: Platform;
let app: ArtifactSet;
const made = tenants(() => platform);
beforeAll(async () => {
  platform = await openTestPlatform(() => new Date('2026-03-15T10:00:00Z'));
  app = await readSource(join(EXAMPLE, 'app'), { draft: true });
});
afterAll(async () => {
  await made.dropAll();
  await platform.close();
});

async function publishWith(bytes: number) {
  const was = { ...SEED_STREAM };
  Object.assign(SEED_STREAM, { bytes, part: 2, store: bytes });
  try {
    const scope = { tenant: made.next(), package: 'app' };
    await stageDrafts(platform, scope, app.artifacts);
    const stored = seedStreamStats.stored;
    const r = await publishBuild(platform, scope);
    return { r, stored: seedStreamStats.stored - stored };
  } finally {
    Object.assign(SEED_STREAM, was);
  }
}

describe('publishBuild over stored seeds', () => {
  it('publishes, seeds and probes a stored seed as it does a held one', async () => {
    const held = await publishWith(2_000_000_000);
    const stored = await publishWith(0);
    expect(held.stored).toBe(0);
    const seeds = app.artifacts.filter((a) => a.type === 'seed').length;
    expect(seeds).toBeGreaterThan(0);
    // Read without their records by the gate (and again by nothing else that holds them).
    expect(stored.stored).toBeGreaterThanOrEqual(seeds);
    expect(held.r).toMatchObject({ outcome: 'published', ok: true });
    expect(stored.r.outcome).toBe(held.r.outcome);
    expect(stored.r.issues).toEqual(held.r.issues);
    expect(stored.r.probes?.skipped).toEqual([]);
    expect(stored.r.probes?.checked).toEqual(held.r.probes?.checked);
    expect(stored.r.probes?.checked.seeds).toBe(seeds);
    expect(stored.r.probes?.rows).toBe(held.r.probes?.rows);
    expect(formatCardLine(stored.r.card!)).toBe(formatCardLine(held.r.card!));
  });
});
