import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Platform } from '@bvl/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GOLDEN_DIR } from '../test/golden-support.ts';
import { openTestPlatform, tenants } from '../test/test-platform.ts';
import { type GoldenCase, loadGoldenCase, loadGoldenCases } from './golden-case.ts';
import { evalCaseOf } from './plan-attempts.ts';
import { blueprintAgent } from './run-blueprint-agent.ts';
import { runEvals } from './run-evals.ts';
import { recordCase } from './run-record-case.ts';

// `bvl eval add-case --from-session`: a build session the fixer could not finish becomes a case
// that loads like any other and, run again, fails on the same issue until the platform learns better.
let platform: Platform;
let cases: GoldenCase[];
let dir: string;
const made = tenants(() => platform);
beforeAll(async () => {
  [platform, cases, dir] = await Promise.all([openTestPlatform(), loadGoldenCases(GOLDEN_DIR), mkdtemp(join(tmpdir(), 'bvl-cases-'))]);
});
afterAll(async () => {
  await made.dropAll();
  await platform.close();
  await rm(dir, { recursive: true, force: true });
});

describe('recordCase', () => {
  it('writes a failed session as a golden case: its goal, the state it left, the errors it left as issues_absent', async () => {
    const expense = cases.find((c) => c.name === 'expense-tracker')!;
    const scope = { tenant: made.next('rec'), package: 'expenses' };
    const { sessionId } = await blueprintAgent().run({
      platform,
      scope,
      case: evalCaseOf(expense, 'date-range-on-budgets'),
      signal: new AbortController().signal,
    });

    const r = await recordCase(platform, { session: sessionId!, dir, name: 'budget-date-range' });
    expect(r.dir).toBe(join(dir, 'budget-date-range'));
    expect(r.errorsLeft).toBe(1);
    expect((await readdir(r.dir)).sort()).toEqual(['blueprint.json', 'case.json']);
    const loaded = await loadGoldenCase(r.dir);
    expect(loaded).toMatchObject({
      name: 'budget-date-range',
      prompt: expense.prompt,
      tags: ['from-session'],
      maxRounds: expense.maxRounds,
      defects: {},
      origin: { session: sessionId, tenant: scope.tenant, package: 'expenses' },
    });
    expect(loaded.assertions.at(-1)).toEqual({
      kind: 'issues_absent',
      issues: [{ code: 'dashboard_filter_field_unknown', artifact: { type: 'dashboard', name: 'exp_spending' }, path: '/dateRange/field' }],
    });
    expect(loaded.assertions.filter((a) => a.kind === 'object_exists').map((a) => a.role)).toEqual([
      'exp_category',
      'exp_department',
      'exp_expense',
      'exp_report',
    ]);

    // Run again through the same path, the incident is still there: fail, naming the issue.
    const again = await runEvals({ platform, agents: [blueprintAgent()], cases: [loaded], suite: `t-rec-${scope.tenant}` });
    expect(again.attempts).toMatchObject([{ case: 'budget-date-range', variant: 'clean', status: 'fail' }]);
    expect(again.attempts[0]!.failureReason).toContain('dashboard_filter_field_unknown on dashboard exp_spending');

    // The tenant is found from the session id alone, and an existing folder is never overwritten.
    await expect(recordCase(platform, { session: sessionId!, dir, name: 'budget-date-range' })).rejects.toThrow(/already exists/);
    const named = await recordCase(platform, { session: sessionId!, tenant: scope.tenant, dir });
    expect(named.case.name).toMatch(/^[a-z].*-[0-9a-f]{8}$/);
  });

  it('says so for a session that does not exist, without writing anything', async () => {
    await expect(recordCase(platform, { session: '00000000-0000-4000-8000-000000000000', dir })).rejects.toThrow(/no build session/);
    await expect(recordCase(platform, { session: 'not-a-uuid', dir })).rejects.toThrow(/no build session "not-a-uuid"/);
    await expect(recordCase(platform, { session: '00000000-0000-4000-8000-000000000000', tenant: 'nobody', dir })).rejects.toThrow(/unknown session/);
  });
});
