// `bvl publish` behind a lock another session holds (a metadata table, the package's lock): after a
// moment one line on stderr names what it waits for and who holds it, and it gives up after
// BVL_LOCK_WAIT_MS with a clear error and exit code. PostgreSQL only (PGlite has one process).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropTenant, openPlatform, type Platform, withPackageLock } from '@bvl/platform';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../cli-io.ts';
import { recordingIo } from '../test-io.ts';
import { lockWaitOf, run as publishCommand } from './publish.ts';

const EXAMPLE = join(import.meta.dirname, '../../../../examples/expense-tracker');
const url = process.env.DATABASE_URL;

describe('BVL_LOCK_WAIT_MS', () => {
  it('defaults to 60 s; anything but a positive whole number of ms is refused', () => {
    expect(lockWaitOf({})).toEqual({ ms: 60_000 });
    expect(lockWaitOf({ BVL_LOCK_WAIT_MS: '1500' })).toEqual({ ms: 1500 });
    for (const bad of ['0', '-5', '1.5', 'soon']) expect(lockWaitOf({ BVL_LOCK_WAIT_MS: bad })).toHaveProperty('problem');
  });
});

describe.runIf(process.env.BVL_TEST_ENGINE === 'postgres' && url)('bvl publish behind a held lock (PostgreSQL)', () => {
  let cwd: string;
  let platform: Platform;
  const made: string[] = [];
  const tenant = () => {
    const t = `lockwait_${process.pid}_${randomBytes(3).toString('hex')}`;
    made.push(t);
    return t;
  };
  beforeAll(async () => {
    cwd = await mkdtemp(join(tmpdir(), 'bvl-lockwait-'));
    platform = await openPlatform({ databaseUrl: url });
  });
  afterAll(async () => {
    for (const t of made) await dropTenant(platform, t).catch(() => {});
    await platform.close();
    await rm(cwd, { recursive: true, force: true });
  });

  it('a metadata table another session holds: a notice naming the table and its holder, then exit 2 after the wait', async () => {
    const control = new pg.Client({ connectionString: url, application_name: 'lock holder' });
    await control.connect();
    try {
      await control.query('begin');
      await control.query('lock table bvl.metadata_items in share mode');
      const io = recordingIo(cwd, { DATABASE_URL: url, BVL_LOCK_WAIT_MS: '2500' });
      const started = Date.now();
      const code = await publishCommand([`${EXAMPLE}/app`, '--tenant', tenant()], io);
      const took = Date.now() - started;
      expect(code).toBe(EXIT.cannotRun);
      const lines = io.err().trimEnd().split('\n');
      expect(lines[0]).toMatch(
        /^bvl: waiting for table bvl\.metadata_items, held by pid \d+ \(application "lock holder", idle in transaction, for \d+ s\); giving up after 2\.5 s \(BVL_LOCK_WAIT_MS\)$/,
      );
      expect(lines.at(-1)).toBe('bvl: could not publish: gave up waiting 2.5 s for table bvl.metadata_items (BVL_LOCK_WAIT_MS); nothing was published');
      expect(lines).toHaveLength(2);
      expect(took).toBeLessThan(20_000);
    } finally {
      await control.query('rollback').catch(() => {});
      await control.end();
    }
  });

  it("the package's lock another publish holds: a notice, then the publish fails naming the holder (exit 1)", async () => {
    const t = tenant();
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => {
      locked = r;
    });
    const holder = withPackageLock(platform, { tenant: t, package: 'default' }, async () => {
      locked();
      await held;
    });
    await isLocked;
    try {
      const io = recordingIo(cwd, { DATABASE_URL: url, BVL_LOCK_WAIT_MS: '3000' });
      const code = await publishCommand([`${EXAMPLE}/app`, '--tenant', t], io);
      expect(code).toBe(EXIT.errors);
      expect(io.err()).toMatch(
        /^bvl: waiting for the lock of the package \(another publish holds it\), held by pid \d+ .+; giving up after 3 s \(BVL_LOCK_WAIT_MS\)\n/,
      );
      expect(io.err()).toMatch(
        /bvl: publish failed: nothing was published: package "default" of tenant "lockwait_.+" is locked by another publish: pid \d+ .+ bvl waited 3 s/,
      );
    } finally {
      release();
      await holder;
    }
  });
});
