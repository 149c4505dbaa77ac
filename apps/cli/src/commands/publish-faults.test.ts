import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropTenant, openPlatform, tenantSchema } from '@bvl/platform';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../cli-io.ts';
import { recordingIo } from '../test-io.ts';
import { run as publishCommand } from './publish.ts';

// Faults during `bvl publish`, each with the exact report it must give: once the publish has
// committed, the outcome is `published` and the exit is 1 with a report (never 2, "could not
// publish"), whatever fails after it; the publish log records what happened.
const postgres = process.env.BVL_TEST_ENGINE === 'postgres' && process.env.DATABASE_URL ? process.env.DATABASE_URL : undefined;
const env: { DATABASE_URL?: string } = postgres ? { DATABASE_URL: postgres } : {};
let cwd: string;
const tenantsMade: Array<{ url?: string; tenant: string }> = [];
/** A tenant id for this run; dropped afterwards from the database at `cleanup` (none: nothing to drop). */
const tenant = (cleanup: string | undefined = postgres) => {
  const t = `flt_${process.pid}_${randomBytes(3).toString('hex')}`;
  tenantsMade.push({ ...(cleanup ? { url: cleanup } : {}), tenant: t });
  return t;
};

beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'bvl-faults-'));
});
afterAll(async () => {
  for (const { url, tenant: t } of tenantsMade) {
    if (!url) continue;
    const p = await openPlatform({ databaseUrl: url });
    await dropTenant(p, t).catch(() => {});
    await p.close();
  }
  await rm(cwd, { recursive: true, force: true });
});

async function publish(args: string[], io = recordingIo(cwd, env)) {
  const code = await publishCommand([...args, '--format', 'json'], io);
  return { code, io, json: () => JSON.parse(io.out()) };
}

/** The report with what differs per run replaced: the tenant, the data folder, a server file path, a free-space figure. */
function normalized(report: unknown, values: Record<string, string>): unknown {
  let text = JSON.stringify(report);
  for (const [placeholder, value] of Object.entries(values)) text = text.replaceAll(value, placeholder);
  text = text.replace(/pg_tblspc\/[0-9A-Za-z_/]+/g, '<file>').replace(/its disk has \d+ MB free/g, 'its disk has <n> MB free');
  return JSON.parse(text);
}
async function stackFile(doc: unknown, dir = cwd): Promise<string> {
  const file = join(dir, `stack-${randomBytes(4).toString('hex')}.json`);
  await writeFile(file, JSON.stringify(doc));
  return file;
}

/**
 * Three objects seeded in order: a_small, then b_big (whose rows are wide: 30 text fields, each
 * defaulting to 1,000 incompressible characters, so its seed fills a disk while its metadata stays
 * small), then c_after.
 */
function threeSeeds(bigRecords: number) {
  const wide = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`w${i}`, { type: 'text', defaultValue: randomBytes(750).toString('base64') }]));
  return {
    objects: [
      { name: 'a_small', fields: { name: { type: 'text' } } },
      { name: 'b_big', fields: { name: { type: 'text' }, ...wide } },
      { name: 'c_after', fields: { name: { type: 'text' } } },
    ],
    data: [
      { object: 'a_small', externalId: 'name', records: [{ name: 'a1' }, { name: 'a2' }, { name: 'a3' }] },
      { object: 'b_big', externalId: 'name', records: Array.from({ length: bigRecords }, (_, i) => ({ name: `b${i}` })) },
      { object: 'c_after', externalId: 'name', records: [{ name: 'c1' }, { name: 'c2' }] },
    ],
  };
}

/** A small tmpfs mounted for the test (root only), or why not. */
function smallDisk(size: string, options = ''): { dir: string; cleanup: () => void } | string {
  if (process.getuid?.() !== 0) return 'mounting a tmpfs needs root';
  const dir = execFileSync('mktemp', ['-d', join(tmpdir(), 'bvl-disk-XXXXXX')], { encoding: 'utf8' }).trim();
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}${options}`, 'tmpfs', dir]);
  } catch (e) {
    execFileSync('rmdir', [dir]);
    return `cannot mount a tmpfs here: ${(e as Error).message.split('\n')[0]}`;
  }
  return {
    dir,
    cleanup: () => {
      execFileSync('umount', [dir]);
      execFileSync('rmdir', [dir]);
    },
  };
}

/** The three-seed publish's report when a database failure `cause` stops the seeds at b_big. */
function stoppedAtBig(cause: string, big: number, extra: { logLost?: boolean; probesLost?: string } = {}) {
  const seedError = (seed: string, message: string) => ({ seed, object: seed, recordIndex: -1, message });
  const hit = `not applied: the database failed while writing it, and its transaction rolled back: ${cause}`;
  const after = `not applied: the seeds stopped before it, on a database failure (${cause})`;
  const outcome = (seed: string, records: number, reason?: string) => ({
    seed,
    object: seed,
    mode: 'upsert',
    records,
    applied: reason === undefined,
    inserted: reason === undefined ? records : 0,
    updated: 0,
    skipped: 0,
    failed: reason === undefined ? 0 : records,
    ...(reason === undefined ? {} : { reason }),
  });
  const published = 'Package "default" was published to tenant "<tenant>" (its metadata and tables are committed), but ';
  return {
    ok: false,
    outcome: 'published',
    issues: [
      {
        code: 'publish_interrupted',
        artifact: { type: 'package', name: 'default' },
        message: `${published}the seeds stopped on a database failure (${cause}): 1 of 3 seeds were applied (3 rows inserted, 0 updated), and "b_big", "c_after" were not (a seed the failure hit is rolled back whole)${extra.logLost ? `; and the publish log could not record the seed report (${cause}), so it still says the seeds are pending` : ''}.`,
      },
      ...(extra.probesLost
        ? [
            {
              code: 'publish_interrupted',
              artifact: { type: 'package', name: 'default' },
              message: `${published}the probe result could not be recorded (${extra.probesLost}).`,
            },
          ]
        : []),
      {
        code: 'seed_not_applied',
        artifact: { type: 'seed', name: 'b_big' },
        message: `Seed "b_big" has ${big} records for object "b_big", but the object has no rows after publish. The publish reported: the seed: ${hit}.`,
      },
      {
        code: 'seed_not_applied',
        artifact: { type: 'seed', name: 'c_after' },
        message: `Seed "c_after" has 2 records for object "c_after", but the object has no rows after publish. The publish reported: the seed: ${after}.`,
      },
    ],
    seedApplied: {
      success: false,
      inserted: 3,
      updated: 0,
      skipped: 0,
      errors: [seedError('b_big', hit), seedError('c_after', after)],
      errorsOmitted: 0,
      seeds: [outcome('a_small', 3), outcome('b_big', big, hit), outcome('c_after', 2, after)],
      interrupted: cause,
    },
  };
}

/** What a fault test compares: the verdict, each issue's code, artifact and message, the seed report. */
const essentials = (report: { ok: boolean; outcome: string; issues: Array<{ code: string; artifact: unknown; message: string }>; seedApplied: unknown }) => ({
  ok: report.ok,
  outcome: report.outcome,
  issues: report.issues.map((i) => ({ code: i.code, artifact: i.artifact, message: i.message })),
  seedApplied: report.seedApplied,
});

describe('bvl publish under faults', { timeout: 300_000 }, () => {
  it('an input past the bounds (a million empty objects, a FIFO) exits 2 with one line, before touching the database', async () => {
    const { main } = await import('../main.ts');
    const million = join(cwd, 'million.json');
    await writeFile(million, `{"objects":[${Array.from({ length: 1_000_000 }, () => '{}').join(',')}]}`);
    const fresh = await mkdtemp(join(tmpdir(), 'bvl-bounds-'));
    try {
      const io = recordingIo(fresh, {});
      expect(await main(['publish', million], io)).toBe(EXIT.cannotRun);
      expect(io.err()).toBe(
        `bvl: ${million} holds 1,000,000 artifacts; bvl reads at most 20,000 per input (objects, views, dashboards, datasets, apps, seeds, reports and pages together). Split the app into packages\n`,
      );
      const fifo = join(fresh, 'pipe.json');
      execFileSync('mkfifo', [fifo]);
      const io2 = recordingIo(fresh, {});
      expect(await main(['verify', fifo], io2)).toBe(EXIT.cannotRun);
      expect(io2.err()).toBe(`bvl: cannot read ${fifo}: it is not a regular file (a FIFO, socket or device); give a stack file or a folder\n`);
      expect(existsSync(join(fresh, '.bvl'))).toBe(false);
    } finally {
      await rm(fresh, { recursive: true, force: true });
    }
  });

  it('bad CEL in one record: that record fails alone; published, exit 1, the probes count the missing row', async () => {
    const t = tenant();
    const file = await stackFile({
      objects: [
        { name: 'a_task', fields: { name: { type: 'text' }, due: { type: 'date' } } },
        { name: 'b_note', fields: { name: { type: 'text' } } },
      ],
      data: [
        {
          object: 'a_task',
          externalId: 'name',
          records: [
            { name: 't1', due: { dialect: 'cel', source: 'daysAgo(2)' } },
            { name: 't2', due: { dialect: 'cel', source: 'daysAgo(99999999999)' } },
          ],
        },
        { object: 'b_note', externalId: 'name', records: [{ name: 'n1' }] },
      ],
    });
    const r = await publish([file, '--tenant', t]);
    expect(r.code).toBe(EXIT.errors);
    expect(r.io.err()).toBe('');
    const bad = 'row not written: the date is out of range in CEL "daysAgo(99999999999)"';
    expect(essentials(r.json())).toEqual({
      ok: false,
      outcome: 'published',
      issues: [
        {
          code: 'row_count_mismatch',
          artifact: { type: 'seed', name: 'a_task' },
          message: `Object "a_task" has 1 row after publish, fewer than the 2 records of seed "a_task". The publish reported: record 1 (field "due"): ${bad}.`,
        },
      ],
      seedApplied: {
        success: false,
        inserted: 2,
        updated: 0,
        skipped: 0,
        errors: [{ seed: 'a_task', object: 'a_task', recordIndex: 1, field: 'due', message: bad }],
        errorsOmitted: 0,
        seeds: [
          { seed: 'a_task', object: 'a_task', mode: 'upsert', records: 2, applied: true, inserted: 1, updated: 0, skipped: 0, failed: 1 },
          { seed: 'b_note', object: 'b_note', mode: 'upsert', records: 1, applied: true, inserted: 1, updated: 0, skipped: 0, failed: 0 },
        ],
      },
    });
    expect(r.json().probes).toMatchObject({ checked: { seeds: 2, objects: 2 }, total: { seeds: 2, objects: 2 } });
  });

  it.runIf(postgres)(
    'connection killed during seeds (PostgreSQL): the seed it hit is rolled back, the rest not run, the report and the log say so',
    async () => {
      const t = tenant();
      const stack = threeSeeds(5);
      // The tables first; then b_big gets a trigger that kills the session writing into it.
      expect((await publish([await stackFile({ objects: stack.objects }), '--tenant', t])).code).toBe(EXIT.clean);
      const admin = new pg.Client({ connectionString: postgres });
      await admin.connect();
      try {
        await admin.query(`create function ${tenantSchema(t)}.kill_me() returns trigger language plpgsql as $$
        begin perform pg_terminate_backend(pg_backend_pid()); return null; end $$`);
        await admin.query(`create trigger kill_me before insert on ${tenantSchema(t)}.b_big for each statement execute function ${tenantSchema(t)}.kill_me()`);
      } finally {
        await admin.end();
      }
      const r = await publish([await stackFile(stack), '--tenant', t]);
      expect(r.code).toBe(EXIT.errors);
      expect(r.io.err()).toBe('');
      // The failure as it happened (the server's own words for pg_terminate_backend), not what a rollback on the dead connection said after it.
      const expected = stoppedAtBig('terminating connection due to administrator command', 5);
      expect(normalized(essentials(r.json()), { '<tenant>': t })).toEqual(expected);
      // The log has the whole report: written through the pool, as the publishing connection is gone.
      const p = await openPlatform({ databaseUrl: postgres });
      try {
        const log = await p.db.selectFrom('bvl.publish_log').select(['outcome', 'seed_applied']).where('tenant_id', '=', t).orderBy('id').execute();
        expect(log.map((l) => l.outcome)).toEqual(['published', 'published']);
        expect(log[1]!.seed_applied).toEqual(expected.seedApplied);
      } finally {
        await p.close();
      }
    },
  );

  it.runIf(!postgres)('disk full on PGlite (a small tmpfs): one clear error within the publish, published, exit 1', async (ctx) => {
    const disk = smallDisk('200m');
    if (typeof disk === 'string') return ctx.skip(disk);
    try {
      const t = tenant();
      const r = await publish([await stackFile(threeSeeds(2000), disk.dir), '--tenant', t], recordingIo(disk.dir, {}));
      expect(r.code).toBe(EXIT.errors);
      expect(r.io.err()).toBe('');
      const full =
        'PGlite at <dir>/.bvl/data: its disk has <n> MB free, under the 64 MB bvl keeps free (PGlite stops responding on a full disk); free disk space, or set DATABASE_URL to use PostgreSQL';
      expect(normalized(essentials(r.json()), { '<tenant>': t, '<dir>': disk.dir })).toEqual(stoppedAtBig(full, 2000, { logLost: true, probesLost: full }));
      // The next run on that disk stops at once, before opening PGlite, with the same clear line.
      const again = recordingIo(disk.dir, {});
      expect(await publishCommand([await stackFile({ objects: [] }, disk.dir), '--tenant', t], again)).toBe(EXIT.cannotRun);
      expect(normalized(again.err(), { '<dir>': disk.dir })).toBe(`bvl: cannot open the database: cannot open ${full}\n`);
    } finally {
      disk.cleanup();
    }
  });

  it.runIf(postgres)('disk full on PostgreSQL (the tenant tables on a small tmpfs tablespace): one clear error, published, exit 1', async (ctx) => {
    // The server must run here, as the local user postgres, to put a tablespace on a tmpfs we mount.
    const url = new URL(postgres!);
    if (!['127.0.0.1', 'localhost', '::1', '[::1]'].includes(url.hostname)) return ctx.skip('the PostgreSQL server is not on this machine');
    let owner: string;
    try {
      owner = `uid=${execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()},gid=${execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim()}`;
    } catch {
      return ctx.skip('no local user postgres owns the server');
    }
    const disk = smallDisk('16m', `,${owner},mode=0700`);
    if (typeof disk === 'string') return ctx.skip(disk);
    const name = `${url.pathname.slice(1)}_disk_${process.pid}`;
    const small = new URL(url);
    small.pathname = `/${name}`;
    const admin = new pg.Client({ connectionString: postgres });
    await admin.connect();
    try {
      await admin.query(`create tablespace ${name} location '${disk.dir}'`);
      await admin.query(`create database ${name}`);
      // bvl's own tables stay on the main disk; the tenant's tables go to the small one.
      await (await openPlatform({ databaseUrl: small.toString() })).close();
      await admin.query(`alter database ${name} set default_tablespace = ${name}`);
      // The whole database is dropped afterwards.
      const t = `flt_${process.pid}_${randomBytes(3).toString('hex')}`;
      const r = await publish([await stackFile(threeSeeds(2000)), '--tenant', t], recordingIo(cwd, { DATABASE_URL: small.toString() }));
      expect(r.code).toBe(EXIT.errors);
      expect(r.io.err()).toBe('');
      expect(normalized(essentials(r.json()), { '<tenant>': t })).toEqual(
        stoppedAtBig('could not extend file "<file>": No space left on device (hint: Check free disk space.)', 2000),
      );
    } finally {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.query(`drop tablespace if exists ${name}`);
      await admin.end();
      disk.cleanup();
    }
  });
});
