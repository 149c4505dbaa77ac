import { randomBytes } from 'node:crypto';
import { collectStack } from '@bvl/metadata';
import { ensureTenant, type Platform, stageDrafts } from '@bvl/platform';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GOLDEN_DIR, noFixer } from '../test/golden-support.ts';
import { ENGINE, openTestPlatform } from '../test/test-platform.ts';
import { type EvalAgent, RateLimitedError } from './eval-agent.ts';
import { type GoldenCase, loadGoldenCases } from './golden-case.ts';
import { attemptTenant, EVAL_TENANT_PREFIX } from './plan-attempts.ts';
import { compareWithBaseline, summarizeStoredBatch } from './run-batch-report.ts';
import { blueprintAgent } from './run-blueprint-agent.ts';
import { createBatch, getBatch, listAttempts, saveAttempt, sweepEvalTenants } from './run-eval-store.ts';
import { type EvalProgress, runEvals } from './run-evals.ts';

// The runner end to end on the platform under test (PGlite, and PostgreSQL when DATABASE_URL is
// set): the golden suite through the deterministic agent, rows in ai_eval_runs, the comparison with
// a baseline, resume after a stop, back-off on rate limits, and honest error / limit statuses.
let platform: Platform;
let cases: GoldenCase[];
beforeAll(async () => {
  let all: GoldenCase[];
  [platform, all] = await Promise.all([openTestPlatform(), loadGoldenCases(GOLDEN_DIR)]);
  // The reference cases (a case recorded from a session may fail until the platform learns better).
  cases = all.filter((c) => c.origin === undefined);
});
afterAll(async () => {
  await platform.close();
});

/** A suite name no other run of this file (or engine) shares, so baselines stay within the test. */
const suite = (label: string) => `t-${label}-${ENGINE}-${randomBytes(4).toString('hex')}`;
const only = (...names: string[]) => cases.filter((c) => names.includes(c.name));

async function evalTenantsOf(batch: number): Promise<string[]> {
  const rows = await platform.db.selectFrom('bvl.tenants').select('id').where('id', 'like', `${EVAL_TENANT_PREFIX}${batch}\\_%`).execute();
  return rows.map((r) => r.id);
}

describe('the golden suite through the blueprint agent', () => {
  it('passes every clean blueprint and fixer set, fails every agent set with its issues left, one stored row per attempt', async () => {
    const r = await runEvals({ platform, agents: [blueprintAgent()], cases, suite: suite('golden'), gitCommit: 'abc123' });
    expect(r.complete).toBe(true);
    expect(r.batch.status).toBe('finished');
    const entries = cases.flatMap((c) => [
      { case: c.name, variant: 'clean', want: 'pass' },
      ...Object.entries(c.defects).map(([name, set]) => ({ case: c.name, variant: name, want: set.repair === 'fixer' ? 'pass' : 'fail' })),
    ]);
    expect(
      r.attempts
        .map((a) => ({ case: a.case, variant: a.variant, want: a.status }))
        .sort((a, b) => (`${a.case}/${a.variant}` < `${b.case}/${b.variant}` ? -1 : 1)),
    ).toEqual(entries.sort((a, b) => (`${a.case}/${a.variant}` < `${b.case}/${b.variant}` ? -1 : 1)));
    expect(r.summary).toMatchObject({ error: 0, limit: 0, attempts: entries.length, planned: entries.length });
    const agentSets = entries.filter((e) => e.want === 'fail').length;
    expect(r.summary).toMatchObject({ expectedFail: agentSets, unexpectedFail: 0, unexpectedPass: 0 });

    const full = await listAttempts(platform, r.batch, { full: true });
    for (const a of full) {
      const c = cases.find((x) => x.name === a.case)!;
      expect(a.version).toBe(c.version);
      expect(a.evidence?.published, `${a.case}/${a.variant}`).toBeDefined();
      expect(a.rounds.length, `${a.case}/${a.variant}`).toBeGreaterThan(0);
      if (a.status === 'pass') {
        expect(a.failureReason).toBeNull();
        // A rubric waits for a judge model; this run has none, so it is not graded either way.
        expect(a.assertions.filter((x) => x.outcome !== 'pass').map((x) => `${x.kind}:${x.outcome}`)).toEqual(a.case === 'helpdesk' ? ['rubric:ungraded'] : []);
        expect(a.expected).toBe('pass');
        continue;
      }
      // The blueprint agent repairs only through the fixer: the case expects it to fail exactly the sets only a model can repair.
      expect(a.expected, `${a.case}/${a.variant}`).toBe('fail');
      // Not hidden: the row names every issue the defect set causes, and why it failed.
      const set = c.defects[a.variant]!;
      expect(a.failureReason, a.variant).toMatch(/error|assertions? failed/);
      for (const e of set.expect)
        expect(
          a.issues.some((i) => i.code === e.code && i.artifact.name === e.artifact.name),
          `${a.case}/${a.variant} keeps ${e.code} on ${e.artifact.name}`,
        ).toBe(true);
      expect(a.assertions.find((x) => x.kind === 'issues_absent')?.pass).toBe(false);
    }
    // The fixer's work is on record: a fixer set passed with round 0 changing drafts.
    const fixed = full.find((a) => a.case === 'helpdesk' && a.variant === 'widget-typos')!;
    expect(fixed.rounds[0]).toMatchObject({ round: 0, kind: 'verify', errors: [] });
    expect(fixed.rounds[0]!.fixes).toBeGreaterThan(0);
    expect(fixed.rounds.map((x) => x.kind)).toEqual(['verify', 'publish']);
    // The session and its rounds outlive the tenant, with the issues of each round.
    expect(fixed.session).toMatchObject({ goal: expect.any(String), status: 'stopped', stopReason: 'clean', repairRounds: 0, maxRounds: 2 });
    expect(fixed.session!.rounds.map((x) => [x.round, x.kind, x.errors, x.fixes.length > 0])).toEqual([
      [0, 'verify', 0, true],
      [1, 'publish', 0, false],
    ]);
    expect(fixed.card).toMatchObject({ ok: true, published: true, layers: { structure: { status: expect.any(String) } } });
    const broken = full.find((a) => a.case === 'helpdesk' && a.variant === 'inert-priority')!;
    expect(broken.session!.rounds[0]!.issues.map((i) => i.code)).toContain('inert_field');
    expect(broken.session!.rounds[0]!.new).toEqual(broken.session!.rounds[0]!.issues.map((i) => i.fingerprint).sort());
    // An unpublished build counts what failed, not what could not run after it.
    expect(broken.failureReason).toBe(
      'not published; 1 error left: inert_field on object hd_ticket.priority /fields/priority; 2 assertions failed: published, issues_absent; 16 could not run; stopped: nothing_to_fix',
    );

    const rows = await platform.db
      .selectFrom('bvl.ai_eval_runs')
      .select(['status', 'agent', 'git_commit', 'worker', 'latency_ms', sql<number>`jsonb_array_length(fingerprints)`.as('rounds')])
      .where('batch_id', '=', r.batch.id)
      .execute();
    expect(rows).toHaveLength(entries.length);
    for (const row of rows) expect(row).toMatchObject({ agent: 'blueprint', git_commit: 'abc123', worker: expect.stringContaining(':') });
    const stored = await platform.db
      .selectFrom('bvl.ai_eval_cases')
      .select(['name', 'version'])
      .where(
        'name',
        'in',
        cases.map((c) => c.name),
      )
      .execute();
    for (const c of cases) expect(stored).toContainEqual({ name: c.name, version: c.version });
    // Every attempt's tenant is gone.
    expect(await evalTenantsOf(r.batch.id)).toEqual([]);
  });
});

describe('batches over time', () => {
  it('compares a run with the previous batch of its suite and agent, listing the entries that regressed', async () => {
    const name = suite('compare');
    const first = await runEvals({ platform, agents: [blueprintAgent()], cases: only('helpdesk'), suite: name });
    expect(await compareWithBaseline(platform, first.batch, first.summary)).toBeNull();
    const second = await runEvals({ platform, agents: [noFixer], cases: only('helpdesk'), suite: name });
    const comparison = await compareWithBaseline(platform, second.batch, second.summary);
    expect(comparison).toMatchObject({
      batch: first.batch.id,
      passRate: 0.75,
      regressed: [
        { case: 'helpdesk', variant: 'urgent-view-type-list', before: 1, after: 0, versionChanged: false },
        { case: 'helpdesk', variant: 'widget-typos', before: 1, after: 0, versionChanged: false },
      ],
      improved: [],
      added: [],
    });
    // An explicit baseline wins; comparing a batch with itself shows no change.
    expect(await compareWithBaseline(platform, second.batch, second.summary, second.batch.id)).toMatchObject({ regressed: [], improved: [] });
    // Like with like: a batch of other defect sets is not picked as the baseline, and named as unlike when given.
    const third = await runEvals({ platform, agents: [blueprintAgent()], cases: only('helpdesk'), suite: name, defects: 'fixer' });
    expect(await compareWithBaseline(platform, third.batch, third.summary)).toBeNull();
    expect(await compareWithBaseline(platform, third.batch, third.summary, second.batch.id)).toMatchObject({
      compared: 3,
      improved: [
        { case: 'helpdesk', variant: 'urgent-view-type-list', before: 0, after: 1 },
        { case: 'helpdesk', variant: 'widget-typos', before: 0, after: 1 },
      ],
      unlike: [`batch ${second.batch.id} ran defect sets "all", this one "fixer": only the entries both ran are compared`],
    });
  });

  it('a stopped run keeps its finished rows; --resume runs only the rest and finishes the batch', async () => {
    const stop = new AbortController();
    const events: EvalProgress[] = [];
    const first = await runEvals({
      platform,
      agents: [blueprintAgent()],
      cases: only('helpdesk', 'inventory'),
      defects: 'none',
      epochs: 2,
      suite: suite('resume'),
      signal: stop.signal,
      onProgress: (e) => {
        events.push(e);
        if (e.kind === 'attempt' && e.done === 2) stop.abort();
      },
    });
    expect(first.complete).toBe(false);
    expect(first.batch.status).toBe('running');
    expect(first.attempts).toHaveLength(2);
    const before = await listAttempts(platform, first.batch);

    const resumed = await runEvals({ platform, agents: [blueprintAgent()], resume: first.batch.id });
    expect(resumed.ran).toBe(2);
    expect(resumed.complete).toBe(true);
    expect(resumed.batch.status).toBe('finished');
    const after = await listAttempts(platform, resumed.batch);
    expect(after.map((a) => `${a.case}#${a.epoch}:${a.status}`)).toEqual(['helpdesk#1:pass', 'helpdesk#2:pass', 'inventory#1:pass', 'inventory#2:pass']);
    for (const b of before) expect(after.find((a) => a.case === b.case && a.epoch === b.epoch)?.startedAt).toBe(b.startedAt);
    expect(resumed.summary).toMatchObject({ pass: 4, passAt1: 1, passAtK: 1, passHatK: 1, epochs: 2 });
    // Resuming a finished batch runs nothing; another agent cannot resume it.
    expect((await runEvals({ platform, agents: [blueprintAgent()], resume: first.batch.id })).ran).toBe(0);
    await expect(runEvals({ platform, agents: [{ ...noFixer, name: 'other' }], resume: first.batch.id })).rejects.toThrow(
      /batch \d+ was run by blueprint; resume it with --agent blueprint \(this run has other\)/,
    );
    await expect(runEvals({ platform, agents: [blueprintAgent()], resume: 999_999_999 })).rejects.toThrow(/no eval batch 999999999/);
  });
});

describe('statuses that are not a verdict on the build', () => {
  const one = (agent: EvalAgent, extra: Partial<Parameters<typeof runEvals>[0]> = {}) =>
    runEvals({ platform, agents: [agent], cases: only('helpdesk'), defects: 'none', suite: suite('status'), ...extra });

  it('a rate-limited agent is backed off and retried from a fresh tenant, and passes', async () => {
    let calls = 0;
    const events: EvalProgress[] = [];
    const flaky: EvalAgent = {
      name: 'flaky',
      readsPrompt: false,
      async run(input) {
        calls++;
        if (calls === 1) {
          await stageDrafts(input.platform, input.scope, collectStack(input.case.start, { draft: true })); // left behind, then dropped
          throw new RateLimitedError('429 Too Many Requests', 20);
        }
        return blueprintAgent().run(input);
      },
    };
    const r = await one(flaky, { onProgress: (e) => events.push(e) });
    expect(calls).toBe(2);
    expect(r.attempts.map((a) => a.status)).toEqual(['pass']);
    expect(events.filter((e) => e.kind === 'pool')).toContainEqual({ kind: 'pool', event: { kind: 'backoff', limit: 1, waitMs: 20 } });
  });

  it('rate limits that outlast the back-off make the attempt "limit", never "fail"', async () => {
    const always: EvalAgent = {
      name: 'always-429',
      readsPrompt: false,
      run: async () => {
        throw new RateLimitedError('429 Too Many Requests', 1);
      },
    };
    const r = await one(always, { backoff: { baseMs: 1, maxMs: 5, maxRetries: 2 } });
    expect(r.attempts).toMatchObject([{ status: 'limit', stopReason: 'rate_limited', failureReason: 'rate limited: 429 Too Many Requests' }]);
  });

  it('an agent that crashes or reports its endpoint failed is "error" (infrastructure), never "fail"', async () => {
    const crash: EvalAgent = {
      name: 'crash',
      readsPrompt: false,
      run: async () => {
        throw new Error('connect ECONNREFUSED 127.0.0.1:9');
      },
    };
    const r = await one(crash);
    expect(r.attempts).toMatchObject([{ status: 'error', failureReason: 'agent: Error: connect ECONNREFUSED 127.0.0.1:9' }]);
    expect(await evalTenantsOf(r.batch.id)).toEqual([]);
    const gaveUp: EvalAgent = {
      name: 'gave-up',
      readsPrompt: false,
      run: async () => ({ sessionId: null, usage: { tokensIn: 10, tokensOut: 2, costUsd: 0.01 }, error: 'HTTP 500 after 3 retries' }),
    };
    expect((await one(gaveUp)).attempts).toMatchObject([{ status: 'error', failureReason: 'agent: HTTP 500 after 3 retries', tokensIn: 10, costUsd: 0.01 }]);
  });

  it('a resumed error keeps its first try: every try is kept, the latest is the row', async () => {
    let calls = 0;
    const flaky: EvalAgent = {
      name: 'blueprint',
      readsPrompt: false,
      async run(input) {
        calls++;
        if (calls === 1) throw new Error('connect ECONNRESET 127.0.0.1:9');
        return blueprintAgent().run(input);
      },
    };
    const first = await one(flaky);
    expect(first.attempts).toMatchObject([{ status: 'error' }]);
    const again = await runEvals({ platform, agents: [flaky], resume: first.batch.id });
    expect(again.ran).toBe(1);
    const [row] = await listAttempts(platform, again.batch, { full: true });
    expect(row).toMatchObject({ status: 'pass', tries: [{ status: 'error', failureReason: 'agent: Error: connect ECONNRESET 127.0.0.1:9' }] });
    expect(row!.tries[0]!.row).toMatchObject({ case_name: 'helpdesk', status: 'error', subject: 'blueprint' });
  });

  it('two workers recording one attempt at once lose neither try', async () => {
    const r = await one(blueprintAgent());
    const [done] = await listAttempts(platform, r.batch, { full: true });
    const record = (worker: string) => ({ ...done!, worker, status: 'error' as const, failureReason: `from ${worker}` });
    await Promise.all([saveAttempt(platform, r.batch, record('w1')), saveAttempt(platform, r.batch, record('w2'))]);
    const [row] = await listAttempts(platform, r.batch, { full: true });
    expect(row!.tries.map((t) => t.worker).sort()).toEqual([done!.worker, row!.worker === 'w1' ? 'w2' : 'w1'].sort());
    expect(row!.tries[0]).toMatchObject({ status: 'pass', worker: done!.worker });
  });

  it('an attempt past its time limit is "limit", and its tenant is dropped', async () => {
    const slow: EvalAgent = {
      name: 'slow',
      readsPrompt: false,
      run: ({ signal }) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true })),
    };
    const r = await one(slow, { timeoutMs: 50 });
    expect(r.attempts).toMatchObject([{ status: 'limit', stopReason: 'time_limit', failureReason: 'time limit of 50 ms reached' }]);
    expect(await evalTenantsOf(r.batch.id)).toEqual([]);
  });

  it('drops the tenants of finished, vanished and silent batches, and keeps a live batch’s', async () => {
    const meta = { subjects: [{ agent: 'blueprint' }], epochs: 1, plan: [], status: 'running' as const };
    const [done, silent, live] = await Promise.all([
      createBatch(platform, { ...meta, suite: suite('sweep') }),
      createBatch(platform, { ...meta, suite: suite('sweep') }),
      createBatch(platform, { ...meta, suite: suite('sweep') }),
    ]);
    await platform.db.updateTable('bvl.ai_eval_batches').set({ status: 'finished' }).where('id', '=', done.id).execute();
    await platform.db.updateTable('bvl.ai_eval_batches').set({ heartbeat_at: '2000-01-01T00:00:00Z' }).where('id', '=', silent.id).execute();
    const key = { case: 'helpdesk', variant: 'clean', prompt: 'default', subject: 'blueprint', epoch: 1 };
    const vanished = 900_000_000 + Math.floor(Math.random() * 1_000_000);
    const tenants = [done.id, silent.id, live.id, vanished].map((b) => attemptTenant(b, key));
    for (const t of tenants) await ensureTenant(platform, { tenant: t, package: 'app' });
    const dropped = await sweepEvalTenants(platform);
    expect(dropped).toEqual(expect.arrayContaining([tenants[0], tenants[1], tenants[3]]));
    expect(dropped).not.toContain(tenants[2]);
    expect(await evalTenantsOf(live.id)).toEqual([tenants[2]]);
    // Liveness is the database's clock: a sweep from a process whose clock is a day ahead (another
    // machine; this suite's platform runs on a fixed clock) keeps the live batch's tenant all the same.
    expect(await sweepEvalTenants({ ...platform, now: () => new Date(platform.now().getTime() + 86_400_000) })).not.toContain(tenants[2]);
    expect(await evalTenantsOf(live.id)).toEqual([tenants[2]]);
    // A resume owns its batch: its tenants go too.
    expect(await sweepEvalTenants(platform, { batch: live.id })).toEqual([tenants[2]]);
    expect((await getBatch(platform, live.id))?.status).toBe('running');
    const { summary } = await summarizeStoredBatch(platform, live);
    expect(summary).toMatchObject({ attempts: 0, planned: 0, passRate: null });
  });
});
