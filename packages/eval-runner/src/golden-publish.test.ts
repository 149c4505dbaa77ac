import { type Platform, publishPackage, stageDrafts } from '@bvl/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defective, expectedRows, GOLDEN_DIR, GOLDEN_NAMES, isStatic, issueRows, stackOf } from '../test/golden-support.ts';
import { openTestPlatform, tenants } from '../test/test-platform.ts';
import type { Blueprint } from './case-file.ts';
import { collectEvidence } from './collect-evidence.ts';
import type { GoldenCase } from './golden-case.ts';
import { loadGoldenCases } from './golden-case.ts';
import { gradeAssertions } from './grade.ts';

// Every golden blueprint publishes through the gate (PGlite, and PostgreSQL when DATABASE_URL is
// set), probes clean, sweeps clean, and passes every assertion of its case. A defect set seen only
// at runtime publishes, and the probes and the grader report exactly what it breaks.
let platform: Platform;
// Loaded before the tests are collected: which defect sets a case has decides which tests it gets.
const cases: GoldenCase[] = await loadGoldenCases(GOLDEN_DIR);
const made = tenants(() => platform);
beforeAll(async () => {
  platform = await openTestPlatform();
});
afterAll(async () => {
  await made.dropAll();
  await platform.close();
});

const tenantFor = (c: GoldenCase) => made.next(c.name.replaceAll('-', '_').slice(0, 14));

async function publishDoc(c: GoldenCase, doc: Blueprint) {
  const scope = { tenant: tenantFor(c), package: 'app' };
  await stageDrafts(platform, scope, stackOf(doc));
  const result = await publishPackage(platform, scope);
  const { evidence, probes } = await collectEvidence(platform, { ...scope, rounds: 0 });
  return { result, evidence, probes };
}

const golden = (name: string) => cases.find((c) => c.name === name)!;

describe.each(GOLDEN_NAMES)('golden case %s, published', (name) => {
  it('publishes through the gate, seeds land, probes and the DOM sweep are clean, and every assertion passes', async () => {
    const c = golden(name);
    const { result, evidence, probes } = await publishDoc(c, c.blueprint);
    expect(result.outcome).toBe('published');
    if (result.outcome !== 'published') return;
    expect(result.issues).toEqual([]);
    expect(result.seedApplied).toMatchObject({ success: true, errors: [] });
    expect(probes.issues).toEqual([]);
    expect(probes.skipped).toEqual([]);
    expect(evidence.dom?.errorBoxes).toBe(0);
    expect(evidence.dom?.emptyWidgets).toBe(0);
    const records = Object.values(evidence.rowCounts).reduce((n, r) => n + r, 0);
    expect(records).toBeGreaterThanOrEqual(20);
    expect(records).toBeLessThanOrEqual(60);
    const results = gradeAssertions(c.assertions, evidence);
    // Every assertion passes; a rubric waits for a judge (there is none here) and is not graded.
    expect(results.filter((r) => !r.pass && !(r.kind === 'rubric' && r.outcome === 'ungraded'))).toEqual([]);
    expect(results).toHaveLength(c.assertions.length);
    // The rendered widgets show the numbers their real queries returned.
    const shown = evidence.dom!.artifacts.flatMap((a) => a.widgets ?? []);
    expect(shown.length).toBeGreaterThan(0);
    for (const w of shown) expect(w.shows, `${name} widget ${w.id}`).toMatchObject({ missingCount: 0 });
  });

  // One test per defect set that only the probes can see (most cases have none; the static ones are golden-cases.test.ts's).
  for (const [defect, set] of Object.entries(golden(name).defects)) {
    const runtime = set.expect.filter((e) => !isStatic(e.code));
    if (runtime.length === 0) continue;
    it(`defect set ${defect}, seen only at runtime, publishes, and the probes and the grader report it`, async () => {
      const c = golden(name);
      const { result, evidence, probes } = await publishDoc(c, defective(c, defect));
      expect(result.outcome).toBe('published');
      expect(issueRows(probes.issues, runtime)).toEqual(expectedRows(runtime));
      const failed = gradeAssertions(c.assertions, evidence).filter((r) => !r.pass);
      expect(failed.map((r) => r.kind)).toContain('probes_clean');
    });
  }
});

describe('the grader on defective publishes', () => {
  it('a refused publish (ADR-0038 #1, #2, #6) fails published; every assertion about the app could not run, and says why', async () => {
    const c = golden('expense-tracker');
    const { result, evidence } = await publishDoc(c, defective(c, 'adr-0038-incidents'));
    expect(result.outcome).toBe('refused');
    const results = gradeAssertions(c.assertions, evidence);
    expect(results.filter((r) => r.pass).map((r) => r.kind)).toEqual(['rounds_at_most']);
    expect(results.find((r) => r.kind === 'published')).toEqual({ kind: 'published', pass: false, outcome: 'fail', evidence: { published: false } });
    expect(results.filter((r) => r.outcome === 'fail').map((r) => r.kind)).toEqual(['published']);
    expect(results.find((r) => r.role === 'expense')).toEqual({
      kind: 'object_exists',
      role: 'expense',
      pass: false,
      outcome: 'skipped',
      evidence: { reason: 'the app was not published' },
    });
    expect(results.find((r) => r.kind === 'widgets_return_rows')).toMatchObject({ pass: false, outcome: 'skipped' });
  });

  it('seeds that never land (ADR-0038 #3) publish, and the grader fails the probe assertion naming the seed', async () => {
    const c = golden('inventory');
    const { result, evidence } = await publishDoc(c, defective(c, 'movement-seeds-never-land'));
    expect(result.outcome).toBe('published');
    expect(evidence.rowCounts.inv_movement).toBe(0);
    expect(evidence.seedApplied).toMatchObject({ success: false });
    const failed = gradeAssertions(c.assertions, evidence).filter((r) => !r.pass);
    expect(failed).toEqual([
      // The movement widget has nothing to show (no empty_query: the probe sees an empty object, not a broken query).
      {
        kind: 'widgets_return_rows',
        pass: false,
        outcome: 'fail',
        evidence: { dashboards: ['inv_stock'], empty: ['inv_stock.flow'], failed: [], probeIssues: [], returnedRows: 6, widgets: 7 },
      },
      {
        kind: 'probes_clean',
        pass: false,
        outcome: 'fail',
        evidence: { errors: [{ code: 'seed_not_applied', artifact: 'seed inv_movement' }], checked: expect.any(Object) },
      },
    ]);
  });
});
