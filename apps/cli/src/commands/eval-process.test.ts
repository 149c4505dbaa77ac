import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPlatform, type Platform, platformOptionsFromEnv } from '@bvl/platform';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// `bvl eval` as real processes (the built binary): a run SIGKILLed after its first rows land, then
// resumed; and (PostgreSQL) two `bvl eval-worker` processes sharing one queued batch.
const ROOT = join(import.meta.dirname, '../../../..');
const BIN = join(ROOT, 'apps/cli/bin/bvl.js');
const GOLDEN = join(ROOT, 'evals/golden');
const postgres = process.env.BVL_TEST_ENGINE === 'postgres' && process.env.DATABASE_URL ? process.env.DATABASE_URL : undefined;
const env = (extra: Record<string, string> = {}) => {
  const { DATABASE_URL: _url, ...rest } = process.env;
  return { ...rest, ...(postgres ? { DATABASE_URL: postgres } : {}), ...extra };
};

let cwd: string;
const children: ChildProcess[] = [];
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'bvl-eval-proc-'));
});
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await rm(cwd, { recursive: true, force: true });
});

/** Spawns bvl; resolves stdout/stderr/exit code; `onErr` sees stderr as it comes. */
function bvl(args: string[], options: { env?: Record<string, string>; onErr?: (text: string, child: ChildProcess) => void } = {}) {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env: options.env ?? env(), stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    err += d;
    options.onErr?.(err, child);
  });
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string; err: string }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, out, err })),
  );
  return { child, done };
}

const open = (): Promise<Platform> => openPlatform(postgres ? { databaseUrl: postgres } : platformOptionsFromEnv({}, cwd));

describe('bvl eval killed mid-way', () => {
  it('SIGKILL after the first rows land; --resume finishes the batch without redoing a finished attempt', async () => {
    const suite = `kill-${randomBytes(4).toString('hex')}`;
    let seen = 0;
    const killed = bvl(['eval', '--cases-dir', GOLDEN, '--cases', 'crm,helpdesk,inventory', '--suite', suite, '--format', 'json'], {
      onErr: (text, child) => {
        seen = (text.match(/^bvl eval: (pass|fail) /gm) ?? []).length;
        if (seen >= 2 && child.signalCode === null) child.kill('SIGKILL');
      },
    });
    const k = await killed.done;
    expect(k.signal).toBe('SIGKILL');
    expect(k.out).toBe('');
    const batch = Number(/batch (\d+) — 13 of 13 attempts to run/.exec(k.err)?.[1]);
    expect(batch).toBeGreaterThan(0);

    const resumed = bvl(['eval', '--resume', String(batch), '--format', 'json']);
    const r = await resumed.done;
    expect(r.err).toMatch(new RegExp(`batch ${batch} — \\d+ of 13 attempts to run`));
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out);
    expect(report).toMatchObject({ batch, suite, complete: true, attempts: 13, planned: 13, error: 0 });

    const platform = await open();
    try {
      const rows = await platform.db
        .selectFrom('bvl.ai_eval_runs')
        .select(['case_name', 'variant', 'worker', 'started_at'])
        .where('batch_id', '=', batch)
        .execute();
      expect(rows).toHaveLength(13);
      const byKilled = rows.filter((x) => x.worker === `${hostname()}:${killed.child.pid}`);
      const byResume = rows.filter((x) => x.worker === `${hostname()}:${resumed.child.pid}`);
      // Every row the killed run printed is still its own: nothing finished was run again.
      expect(byKilled.length).toBeGreaterThanOrEqual(seen);
      expect(byKilled.length + byResume.length).toBe(13);
      expect(r.err).toContain(`${13 - byKilled.length} of 13 attempts to run`);
      // The attempt in flight when the process died left a tenant; the resume dropped it.
      const left = await platform.db.selectFrom('bvl.tenants').select('id').where('id', 'like', `bvl\\_eval\\_${batch}\\_%`).execute();
      expect(left).toEqual([]);
      expect((await platform.db.selectFrom('bvl.ai_eval_batches').select('status').where('id', '=', batch).executeTakeFirst())?.status).toBe('finished');
    } finally {
      await platform.close();
    }
  });
});

describe.runIf(postgres)('bvl eval-worker (PostgreSQL)', () => {
  const schema = `bvl_evq_${randomBytes(4).toString('hex')}`;
  afterAll(async () => {
    const p = await openPlatform({ databaseUrl: postgres! });
    await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(p.db);
    await p.close();
  });

  it('two worker processes share a queued batch; bvl eval --queue --wait reports it like a local run', async () => {
    const qenv = env({ BVL_QUEUE_SCHEMA: schema });
    const workers = [0, 1].map(() => bvl(['eval-worker', '--idle-exit', '4', '--poll', '0.5', '--cases-dir', GOLDEN], { env: qenv }));
    const suite = `queue-${randomBytes(4).toString('hex')}`;
    const producer = bvl(
      [
        'eval',
        '--queue',
        '--wait',
        '--cases-dir',
        GOLDEN,
        '--cases',
        'crm,helpdesk,inventory,project-tracker',
        '--defects',
        'fixer',
        '--suite',
        suite,
        '--format',
        'json',
      ],
      { env: qenv },
    );
    const p = await producer.done;
    expect(p.err).toMatch(/batch \d+ queued — 9 attempts/);
    expect(p.code).toBe(0);
    const report = JSON.parse(p.out);
    expect(report).toMatchObject({ suite, complete: true, attempts: 9, pass: 9, error: 0 });

    const exits = await Promise.all(workers.map((w) => w.done));
    for (const e of exits) {
      expect(e.code).toBe(0);
      expect(e.out).toMatch(/stopped after \d+ attempts?/);
    }
    const platform = await open();
    try {
      const rows = await platform.db.selectFrom('bvl.ai_eval_runs').select('worker').where('batch_id', '=', report.batch).execute();
      expect(new Set(rows.map((x) => x.worker))).toEqual(new Set(workers.map((w) => `${hostname()}:${w.child.pid}`)));
    } finally {
      await platform.close();
    }
  });
});
