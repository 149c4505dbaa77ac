import { readFileSync } from 'node:fs';
import { readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, join, resolve } from 'node:path';

/** The lock file that keeps a second process off a PGlite data folder. */
export const DATA_DIR_LOCK = 'bvl.lock';

/** How often a holder touches its lock file, and how old a touch may be before another machine may take the lock. */
export const LOCK_HEARTBEAT_MS = 5_000;
export const LOCK_STALE_MS = 60_000;

/** Who holds a lock: enough to tell, on this machine, whether that very process still runs. */
export interface LockHolder {
  readonly pid: number;
  readonly host: string;
  /** The kernel's boot id: another boot of the same host is another machine for a pid. */
  readonly boot?: string | undefined;
  /** The process's start time (Linux: clock ticks since boot, /proc/<pid>/stat): a reused pid has another. */
  readonly started?: string | undefined;
  /** When it took the lock (ISO 8601), and what it runs: for the message. */
  readonly since?: string | undefined;
  readonly command?: string | undefined;
}

/** What this machine can say about a process. */
export interface ProcessProbe {
  readonly self: LockHolder;
  alive(pid: number): boolean;
  startOf(pid: number): string | undefined;
  /** Its command line (Linux: /proc/<pid>/cmdline), when it can be read. */
  commandOf(pid: number): string | undefined;
}

/** Whether a lock file may be taken over, and why (for the message when not). */
export type LockVerdict = { readonly take: true; readonly why: string } | { readonly take: false; readonly why: string };

/**
 * Decides over an existing lock. On this machine (same host name and boot) the holder is alive only
 * if its pid runs and — where start times are known — is the same process that wrote the lock: a
 * pid reused by another process (PID 1 in a restarted container, a recycled pid) does not hold it.
 * For a lock written on another machine (a shared volume) the pid says nothing here: the holder
 * touches the file every few seconds, and a file untouched for {@link LOCK_STALE_MS} is free.
 * A lock file that does not parse (an older bvl wrote a bare pid) is judged by its pid on this
 * machine as before, and by its age otherwise.
 */
export function decideLock(holder: LockHolder | undefined, ageMs: number, probe: ProcessProbe): LockVerdict {
  if (!holder) return ageMs > LOCK_STALE_MS ? { take: true, why: 'unreadable and untouched' } : { take: false, why: 'unreadable, recently written' };
  const sameMachine = holder.host === probe.self.host && (holder.boot === undefined || probe.self.boot === undefined || holder.boot === probe.self.boot);
  if (!sameMachine) {
    if (holder.host === probe.self.host) return { take: true, why: 'written before this machine last booted' };
    return ageMs > LOCK_STALE_MS ? { take: true, why: `untouched for ${Math.round(ageMs / 1000)} s` } : { take: false, why: `held on host ${holder.host}` };
  }
  if (!probe.alive(holder.pid)) return { take: true, why: `process ${holder.pid} has ended` };
  // Our own pid, in a lock this process did not take (those are refused before): an earlier process
  // had it — bvl as PID 1 of a container that was restarted.
  if (holder.pid === probe.self.pid) return { take: true, why: `pid ${holder.pid} is this process now` };
  if (holder.started !== undefined) {
    const now = probe.startOf(holder.pid);
    if (now !== undefined && now !== holder.started) return { take: true, why: `pid ${holder.pid} is now another process` };
  } else {
    // A bare-pid lock of an older bvl: the pid holds it only if it still runs Node.
    const command = probe.commandOf(holder.pid);
    if (command !== undefined && !/\bnode\b|\bbvl\b/.test(command)) return { take: true, why: `pid ${holder.pid} is now another program` };
  }
  return { take: false, why: `process ${holder.pid} runs` };
}

/** This machine's probe: signal 0 for liveness, /proc for start times and the boot id (Linux). */
export function localProbe(command: string): ProcessProbe {
  return {
    self: { pid: process.pid, host: hostname(), boot: readText('/proc/sys/kernel/random/boot_id'), started: startOf(process.pid), command },
    alive: isAlive,
    startOf,
    commandOf: (pid) => readText(`/proc/${pid}/cmdline`)?.replaceAll('\0', ' '),
  };
}

const readText = (file: string): string | undefined => {
  try {
    return readFileSync(file, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
};

/** Field 22 of /proc/<pid>/stat (after the command name, which may hold spaces and parentheses). */
function startOf(pid: number): string | undefined {
  const stat = readText(`/proc/${pid}/stat`);
  if (!stat) return undefined;
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function parseHolder(text: string): LockHolder | undefined {
  const bare = /^\s*(\d+)\s*$/.exec(text);
  // An older bvl wrote the bare pid, on this machine as far as anyone knows.
  if (bare) return { pid: Number(bare[1]), host: hostname() };
  try {
    const h = JSON.parse(text) as Partial<LockHolder>;
    return Number.isSafeInteger(h.pid) && (h.pid as number) > 0 && typeof h.host === 'string' ? (h as LockHolder) : undefined;
  } catch {
    return undefined;
  }
}

/** Data folders this process holds: a second open in the same process is refused at once. */
const held = new Set<string>();

/**
 * Takes the data folder's lock file (exclusive create), recording who holds it (pid, host, boot,
 * process start time, the command) and touching it every {@link LOCK_HEARTBEAT_MS} while held.
 * A lock whose holder is gone (see {@link decideLock}) is taken over; a live holder (this process
 * included: two opens of one folder corrupt it just the same) is an error naming it and saying how
 * to recover. Returns the release.
 */
export async function lockDataDir(dir: string, probe: ProcessProbe = localProbe(commandLine())): Promise<() => Promise<void>> {
  const file = join(dir, DATA_DIR_LOCK);
  const key = resolve(dir);
  if (held.has(key)) throw inUse(dir, file, probe.self, 'this process holds it already');
  // Claimed in-process before the file is touched: a second open racing this one is refused above,
  // never mistaken (same pid) for a lock an earlier process left.
  held.add(key);
  try {
    return await takeLockFile(dir, file, probe, () => held.delete(key));
  } catch (e) {
    held.delete(key);
    throw e;
  }
}

async function takeLockFile(dir: string, file: string, probe: ProcessProbe, unhold: () => void): Promise<() => Promise<void>> {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const record: LockHolder = { ...probe.self, since: new Date().toISOString() };
      await writeFile(file, `${JSON.stringify(record)}\n`, { flag: 'wx' });
      const beat = setInterval(() => {
        const t = new Date();
        utimes(file, t, t).catch(() => {});
      }, LOCK_HEARTBEAT_MS);
      beat.unref();
      return async () => {
        clearInterval(beat);
        unhold();
        // Only our own lock is removed (a holder that took a lock it judged stale wrote its own).
        const now = parseHolder(await readFile(file, 'utf8').catch(() => ''));
        if (now?.pid === probe.self.pid && now.host === probe.self.host) await rm(file, { force: true });
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw new Error(`cannot lock PGlite at ${dir}: ${(e as Error).message}`, { cause: e });
      const text = await readFile(file, 'utf8').catch(() => undefined);
      if (text === undefined) continue; // released meanwhile
      const holder = parseHolder(text);
      const age = Date.now() - ((await stat(file).catch(() => undefined))?.mtimeMs ?? 0);
      const verdict = decideLock(holder, age, probe);
      if (!verdict.take) throw inUse(dir, file, holder, verdict.why);
      await rm(file, { force: true });
    }
  }
  throw new Error(`cannot lock PGlite at ${dir}: the lock file keeps reappearing (another process is taking it)`);
}

/** What this process runs, short: `bvl.js serve --port 8787`. */
const commandLine = () => [basename(process.argv[1] ?? 'node'), ...process.argv.slice(2)].join(' ').slice(0, 200);

function inUse(dir: string, file: string, holder: LockHolder | undefined, why: string): Error {
  const who = holder
    ? `process ${holder.pid}${holder.host !== hostname() ? ` on host ${holder.host}` : ''}${holder.command ? ` (${holder.command})` : ''}${holder.since ? ` since ${holder.since}` : ''}`
    : 'another process';
  return new Error(
    `PGlite at ${dir} is in use by ${who} (embedded Postgres is single-process; ${why}): wait for it to finish or stop it, or set DATABASE_URL. If no bvl process uses the folder, delete ${file}.`,
  );
}
