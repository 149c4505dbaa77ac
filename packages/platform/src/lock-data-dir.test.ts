import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { DATA_DIR_LOCK, decideLock, LOCK_STALE_MS, type LockHolder, localProbe, lockDataDir, type ProcessProbe } from './lock-data-dir.ts';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});
const folder = async () => {
  const d = await mkdtemp(join(tmpdir(), 'bvl-lockfile-'));
  dirs.push(d);
  return d;
};

describe('decideLock', () => {
  const self: LockHolder = { pid: 4242, host: 'here', boot: 'boot-1', started: '900' };
  // Processes on "this machine": pid 1 (started at 10, runs tini), 77 (a node process started at 500).
  const probe: ProcessProbe = {
    self,
    alive: (pid) => pid === 1 || pid === 77 || pid === 4242,
    startOf: (pid) => ({ 1: '10', 77: '500', 4242: '900' })[pid],
    commandOf: (pid) => ({ 1: '/sbin/tini -- sh', 77: 'node /usr/bin/bvl serve', 4242: 'node bvl publish' })[pid],
  };
  const cases: Array<[string, LockHolder | undefined, number, boolean]> = [
    ['the holder runs (same pid, same start)', { pid: 77, host: 'here', boot: 'boot-1', started: '500' }, 0, false],
    ['the holder has ended', { pid: 12345, host: 'here', boot: 'boot-1', started: '3' }, 0, true],
    ['PID 1 is another process than the one that locked (a restarted container)', { pid: 1, host: 'here', boot: 'boot-1', started: '7' }, 0, true],
    ['a reused pid', { pid: 77, host: 'here', boot: 'boot-1', started: '499' }, 0, true],
    ['our own pid, from an earlier process', { pid: 4242, host: 'here', boot: 'boot-1', started: '900' }, 0, true],
    ['written before this host last booted', { pid: 77, host: 'here', boot: 'boot-0', started: '500' }, 0, true],
    ['another host, touched recently', { pid: 77, host: 'there', boot: 'boot-9', started: '500' }, 5_000, false],
    ['another host, untouched past the stale bound', { pid: 77, host: 'there', boot: 'boot-9', started: '500' }, LOCK_STALE_MS + 1, true],
    ['an older bvl bare pid, a node process', { pid: 77, host: 'here' }, 0, false],
    ['an older bvl bare pid 1, not node', { pid: 1, host: 'here' }, 0, true],
    ['an older bvl bare pid that has ended', { pid: 999, host: 'here' }, 0, true],
    ['unreadable, just written', undefined, 10, false],
    ['unreadable and old', undefined, LOCK_STALE_MS + 1, true],
  ];
  for (const [name, holder, age, take] of cases) it(`${take ? 'takes' : 'keeps off'}: ${name}`, () => expect(decideLock(holder, age, probe).take).toBe(take));
});

describe('lockDataDir on real files and processes', () => {
  const probe = localProbe('bvl test');
  const write = (dir: string, holder: object | string) => writeFile(join(dir, DATA_DIR_LOCK), typeof holder === 'string' ? holder : JSON.stringify(holder));

  it('takes over a lock whose PID 1 is another process than the one that wrote it, and records itself', async () => {
    const dir = await folder();
    await write(dir, { pid: 1, host: hostname(), boot: probe.self.boot, started: 'not-the-real-start', command: 'bvl serve' });
    const release = await lockDataDir(dir, probe);
    const record = JSON.parse(await readFile(join(dir, DATA_DIR_LOCK), 'utf8'));
    expect(record).toMatchObject({ pid: process.pid, host: hostname(), command: 'bvl test', since: expect.any(String) });
    if (probe.self.started !== undefined) expect(record.started).toBe(probe.self.started);
    await release();
    await expect(stat(join(dir, DATA_DIR_LOCK))).rejects.toThrow();
  });

  // The reported case: an older bvl's bare-pid lock naming PID 1, which runs for ever (here not Node).
  it.runIf(!/\bnode\b|\bbvl\b/.test(probe.commandOf(1) ?? 'node'))('takes over an older bare-pid lock naming PID 1 (not Node)', async () => {
    const dir = await folder();
    await write(dir, '1');
    const release = await lockDataDir(dir, probe);
    await release();
  });

  it('refuses a live holder, naming it and how to recover; takes the lock once it has ended', async () => {
    const dir = await folder();
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      await write(dir, { pid: child.pid, host: hostname(), boot: probe.self.boot, started: probe.startOf(child.pid!), command: 'bvl serve --port 8787' });
      const refused = await lockDataDir(dir, probe).catch((e: Error) => e);
      expect((refused as Error).message).toBe(
        `PGlite at ${dir} is in use by process ${child.pid} (bvl serve --port 8787) (embedded Postgres is single-process; process ${child.pid} runs): wait for it to finish or stop it, or set DATABASE_URL. If no bvl process uses the folder, delete ${join(dir, DATA_DIR_LOCK)}.`,
      );
    } finally {
      child.kill();
      await new Promise((r) => child.once('exit', r));
    }
    const release = await lockDataDir(dir, probe);
    await release();
  });

  it('a lock from another host holds while its holder touches it, and is free once untouched for a minute', async () => {
    const dir = await folder();
    await write(dir, { pid: 77, host: 'another-host', boot: 'x', started: '1' });
    await expect(lockDataDir(dir, probe)).rejects.toThrow(/in use by process 77 on host another-host .*held on host another-host/);
    const old = new Date(Date.now() - LOCK_STALE_MS - 5_000);
    await utimes(join(dir, DATA_DIR_LOCK), old, old);
    const release = await lockDataDir(dir, probe);
    await release();
  });

  it('a second open in the same process is refused at once; the holder touches its lock while it holds it', async () => {
    const dir = await folder();
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const release = await lockDataDir(dir, probe);
      await expect(lockDataDir(dir, probe)).rejects.toThrow(/this process holds it already/);
      const old = new Date(Date.now() - 3_600_000);
      await utimes(join(dir, DATA_DIR_LOCK), old, old);
      vi.advanceTimersByTime(5_000);
      await vi.waitFor(async () => expect((await stat(join(dir, DATA_DIR_LOCK))).mtimeMs).toBeGreaterThan(Date.now() - 60_000));
      await release();
    } finally {
      vi.useRealTimers();
    }
  });

  it('two opens racing in one process: exactly one gets the folder, the other is refused (never a take-over of its own pid)', async () => {
    for (let round = 0; round < 20; round++) {
      const dir = await folder();
      const results = await Promise.allSettled([lockDataDir(dir, probe), lockDataDir(dir, probe)]);
      const won = results.filter((r) => r.status === 'fulfilled');
      expect(won).toHaveLength(1);
      expect((results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason.message).toMatch(/this process holds it already/);
      await (won[0] as PromiseFulfilledResult<() => Promise<void>>).value();
    }
  });

  it('a lock another process took over is not removed by the old holder’s release', async () => {
    const dir = await folder();
    const release = await lockDataDir(dir, probe);
    await write(dir, { pid: 1, host: 'elsewhere', started: '1' });
    await release();
    expect(JSON.parse(await readFile(join(dir, DATA_DIR_LOCK), 'utf8'))).toMatchObject({ host: 'elsewhere' });
  });
});
