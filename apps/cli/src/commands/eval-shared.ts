import { execFile } from 'node:child_process';
import { isAbsolute, join } from 'node:path';
import { promisify } from 'node:util';
import { EvalRunError, sessionTranscripts, type TranscriptReader } from '@bvl/eval-runner';
import { openPlatform, type Platform, platformOptionsFromEnv } from '@bvl/platform';
import { type CliIo, EXIT } from '../cli-io.ts';
import { UsageError } from '../parse-args.ts';
// A new embedded data folder starts from the template the build ships (no initdb).
import '../pglite-template.ts';

/**
 * Where `bvl eval show` and `bvl eval report` read an attempt's transcript: the build session
 * store's (kept past the attempt's tenant); an attempt whose agent made no model turns has none.
 */
export const TRANSCRIPTS: TranscriptReader = sessionTranscripts;

/** Where the golden cases are when --cases-dir is absent. */
export const DEFAULT_CASES_DIR = 'evals/golden';

/** Exit code when the pass rate is below --min-pass. */
export const EXIT_MIN_PASS = 100;

/** A path from a flag, relative to the working directory. */
export const resolvePath = (io: CliIo, p: string) => (isAbsolute(p) ? p : join(io.cwd, p));

/** An integer flag within bounds, or a usage error naming the flag. */
export function intFlag(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max)
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max} (got ${JSON.stringify(value)})`);
  return n;
}

/** A number flag within bounds, or a usage error naming the flag. */
export function numberFlag(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < min || n > max)
    throw new UsageError(`--${name} must be a number from ${min} to ${max} (got ${JSON.stringify(value)})`);
  return n;
}

/** Opens the database (DATABASE_URL, else PGlite under `--data-dir` or .bvl/data), or prints why not and returns undefined. */
export async function openDatabase(io: CliIo, dataDir?: string): Promise<Platform | undefined> {
  try {
    return await openPlatform(platformOptionsFromEnv(io.env, io.cwd, dataDir));
  } catch (e) {
    io.stderr(`bvl: cannot open the database: ${(e as Error).message}\n`);
    return undefined;
  }
}

/**
 * Runs an eval command's work on the database: opens it (exit 2 with one line when it cannot), turns
 * an EvalRunError (an unknown batch, session, …) into one line and exit 2, and always closes it.
 */
export async function withEvalDatabase(io: CliIo, work: (platform: Platform) => Promise<number>): Promise<number> {
  const platform = await openDatabase(io);
  if (!platform) return EXIT.cannotRun;
  try {
    return await work(platform);
  } catch (e) {
    if (!(e instanceof EvalRunError)) throw e;
    io.stderr(`bvl: ${e.message}\n`);
    return EXIT.cannotRun;
  } finally {
    await platform.close().catch(() => {});
  }
}

/** The commit under test: $BVL_GIT_COMMIT, CI's variables, else `git rev-parse HEAD` in the working directory; null when unknown. */
export async function gitCommit(io: CliIo): Promise<string | null> {
  const env = io.env.BVL_GIT_COMMIT ?? io.env.GITHUB_SHA ?? io.env.CI_COMMIT_SHA;
  if (env?.trim()) return env.trim();
  try {
    const { stdout } = await promisify(execFile)('git', ['rev-parse', 'HEAD'], { cwd: io.cwd, timeout: 3_000 });
    return stdout.trim() || null;
  } catch {
    return null;
  }
}

/** The queue needs PostgreSQL: DATABASE_URL, or a usage error saying so. */
export function queueDatabase(io: CliIo): string {
  const url = io.env.DATABASE_URL?.trim();
  if (!url) throw new UsageError('the eval queue needs PostgreSQL: set DATABASE_URL (embedded PGlite is single-process, so no worker could share it)');
  return url;
}

/** Turns Ctrl-C / SIGTERM into an abort for the duration of `fn`. */
export async function withInterrupt<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ac = new AbortController();
  const stop = () => ac.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    return await fn(ac.signal);
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}
