import { randomBytes } from 'node:crypto';
import type { Platform } from '@bvl/platform';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GOLDEN_DIR } from '../test/golden-support.ts';
import { openTestPlatform } from '../test/test-platform.ts';
import { evalAgentNamed } from './eval-agents.ts';
import { subjectOf } from './eval-subject.ts';
import { type GoldenCase, loadGoldenCases } from './golden-case.ts';
import { plannedAttempts } from './plan-attempts.ts';
import { blueprintAgent } from './run-blueprint-agent.ts';
import {
  type EvalQueue,
  type EvalWorker,
  enqueueBatch,
  NIGHTLY_QUEUE,
  nightlySchedule,
  openEvalQueue,
  runEvalWorker,
  scheduleNightly,
  unscheduleNightly,
  type WorkerEvent,
  waitForBatch,
} from './run-eval-queue.ts';
import { getBatch, listAttempts, listBatches } from './run-eval-store.ts';

// The queue needs PostgreSQL (pg-boss); this file runs in the postgres project only. Each run uses
// its own pg-boss schema, dropped at the end, so parallel runs never take each other's jobs.
const url = process.env.DATABASE_URL!;
const schema = `bvl_evq_${randomBytes(4).toString('hex')}`;
let platform: Platform;
let cases: GoldenCase[];
const queues: EvalQueue[] = [];
const workers: EvalWorker[] = [];
const open = async (schedule = false) => {
  const q = await openEvalQueue({ databaseUrl: url, schema, schedule, pollingIntervalSeconds: 0.5 });
  queues.push(q);
  return q;
};
beforeAll(async () => {
  [platform, cases] = await Promise.all([openTestPlatform(), loadGoldenCases(GOLDEN_DIR)]);
});
afterAll(async () => {
  for (const w of workers) await w.stop(1_000);
  for (const q of queues) await q.close().catch(() => {});
  await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(platform.db);
  await platform.close();
});

const suite = () => `t-queue-${randomBytes(4).toString('hex')}`;
const only = (...names: string[]) => cases.filter((c) => names.includes(c.name));

describe('the eval queue (PostgreSQL, pg-boss)', () => {
  it('opens when several processes start on a fresh schema at once (their queue creation races)', async () => {
    const fresh = `${schema}_race`;
    const opened = await Promise.allSettled([0, 1, 2, 3].map(() => openEvalQueue({ databaseUrl: url, schema: fresh })));
    for (const o of opened) if (o.status === 'fulfilled') await o.value.close();
    await sql`drop schema if exists ${sql.id(fresh)} cascade`.execute(platform.db);
    expect(opened.map((o) => (o.status === 'rejected' ? String(o.reason) : 'ok'))).toEqual(['ok', 'ok', 'ok', 'ok']);
  });

  it('two workers on one queue share a batch: every attempt runs once, the batch finishes', async () => {
    const producer = await open();
    const events: Array<WorkerEvent & { worker: string }> = [];
    for (const name of ['worker-a', 'worker-b']) {
      const queue = await open();
      workers.push(
        await runEvalWorker({
          platform,
          queue,
          agentNamed: evalAgentNamed,
          pollingIntervalSeconds: 0.5,
          worker: name,
          onEvent: (e) => events.push({ ...e, worker: name }),
        }),
      );
    }
    const batch = await enqueueBatch(platform, producer, {
      suite: suite(),
      subjects: [subjectOf(blueprintAgent())],
      cases: only('crm', 'helpdesk', 'inventory', 'project-tracker'),
      defects: 'fixer',
    });
    expect(batch.status).toBe('queued');
    const total = plannedAttempts(batch);
    expect(total).toBe(9);
    const stop = AbortSignal.timeout(90_000);
    expect(await waitForBatch(platform, batch, { signal: stop })).toBe(true);

    const rows = await listAttempts(platform, batch);
    expect(rows).toHaveLength(total);
    expect(rows.filter((r) => r.status !== 'pass').map((r) => [r.case, r.variant, r.status, r.failureReason])).toEqual([]);
    expect(new Set(rows.map((r) => r.worker))).toEqual(new Set(['worker-a', 'worker-b']));
    expect(events.filter((e) => e.kind === 'attempt')).toHaveLength(total);
    expect((await getBatch(platform, batch.id))?.status).toBe('finished');
  });

  it('a nightly job (what the cron schedule sends) makes a worker enqueue a batch of its cases', async () => {
    const producer = await open(true);
    await scheduleNightly(producer, '0 3 * * *', { agent: 'blueprint', cases: ['helpdesk'], defects: 'none' });
    expect(await nightlySchedule(producer)).toEqual({ cron: '0 3 * * *', request: { agent: 'blueprint', cases: ['helpdesk'], defects: 'none' } });
    const name = suite();
    const queue = await open();
    const events: WorkerEvent[] = [];
    workers.push(
      await runEvalWorker({
        platform,
        queue,
        agentNamed: evalAgentNamed,
        pollingIntervalSeconds: 0.5,
        loadCases: async () => cases,
        onEvent: (e) => events.push(e),
      }),
    );
    await producer.boss.send(NIGHTLY_QUEUE, { agent: 'blueprint', suite: name, cases: ['helpdesk'], defects: 'none' });
    const deadline = Date.now() + 60_000;
    let found: Awaited<ReturnType<typeof listBatches>> = [];
    while (Date.now() < deadline) {
      found = await listBatches(platform, { suite: name });
      if (found[0]?.status === 'finished') break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(found).toHaveLength(1);
    // helpdesk's prompt variant is planned, but the blueprint agent (which reads no prompt) runs only the default.
    expect(found[0]).toMatchObject({
      agent: 'blueprint',
      subjects: [{ agent: 'blueprint', readsPrompt: false }],
      status: 'finished',
      plan: [
        { case: 'helpdesk', variant: 'clean', prompt: 'default' },
        { case: 'helpdesk', variant: 'clean', prompt: 'terse' },
      ],
    });
    expect(events).toContainEqual({ kind: 'nightly', batch: found[0]!.id, attempts: 1 });
    await unscheduleNightly(producer);
    expect(await nightlySchedule(producer)).toBeUndefined();
  });
});
