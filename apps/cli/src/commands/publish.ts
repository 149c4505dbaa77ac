import { existsSync } from 'node:fs';
import type { BuildIssue } from '@bvl/build-issue';
import { didYouMean, locateIssues, locateNotices, mergeOverlay } from '@bvl/metadata';
import {
  discardDrafts,
  LOCK_WAIT_MS,
  openPlatform,
  type Platform,
  type PublishResult,
  packageExists,
  packageProblem,
  packagesOf,
  platformOptionsFromEnv,
  publishApplicationName,
  type SeedApplied,
  sqlState,
  stageDrafts,
  tenantProblem,
  tenantSchema,
  verifyOverTenant,
  watchLockWaits,
} from '@bvl/platform';
import type { ProbeReport } from '@bvl/runtime-probes';
import { verify } from '@bvl/verify';
import { publishBuild } from '@bvl/verify-build';
import { checkedLine, readInputs } from '../check-input.ts';
import { type CliIo, EXIT } from '../cli-io.ts';
import { COMMAND_HELP } from '../command-help.ts';
import { oneStackArg, parseCommandArgs, parseCount, parseFormat, UsageError } from '../parse-args.ts';
import { createProgress } from '../progress.ts';
import { gateWarnings } from '../warning-gate.ts';
import { writeReport } from '../write-report.ts';
// A new embedded data folder starts from the template the build ships (no initdb).
import '../pglite-template.ts';

/** Tenant used when --tenant is absent. */
export const DEFAULT_TENANT = 'default';
/** Package used when --package is absent. */
export const DEFAULT_PACKAGE = 'default';

/** Seed errors listed in pretty output; the JSON carries them all. */
const MAX_PRINTED_SEED_ERRORS = 10;

/** What `bvl publish` reports, in every format. */
interface PublishReport {
  readonly ok: boolean;
  readonly outcome: PublishResult['outcome'];
  readonly issues: BuildIssue[];
  readonly checked: Record<string, number>;
  readonly seedApplied?: SeedApplied;
  readonly probes?: Omit<ProbeReport, 'issues'>;
  readonly target: { readonly tenant: string; readonly package: string; readonly schema: string; readonly database?: string };
  readonly published?: number;
  readonly error?: string;
}

/**
 * `bvl publish`: load; verify the files (L1 + L2), and when they alone do not pass, again over the
 * tenant's published artifacts (a new data folder holds none: refused before any database is made); stage the overlaid stack as the package's drafts and publish
 * them — publish gates again, on the store's overlay (the tenant's other packages included), inside
 * the package lock — then probe (L3) and report. Exit 0 no error, 1 errors (refused, failed, or
 * runtime errors), 2 could not run (unreadable input, database unreachable).
 */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    argv,
    {
      drafts: { type: 'string' },
      format: { type: 'string' },
      tenant: { type: 'string' },
      package: { type: 'string' },
      'data-dir': { type: 'string' },
      output: { type: 'string', short: 'o' },
      quiet: { type: 'boolean', short: 'q' },
      'max-warnings': { type: 'string' },
      all: { type: 'boolean' },
      'allow-data-change': { type: 'boolean' },
    },
    'publish',
  );
  const stack = oneStackArg(positionals, 'publish', COMMAND_HELP.publish.usage);
  const format = parseFormat(values.format);
  const maxWarnings = parseCount('--max-warnings', values['max-warnings']);
  const progress = createProgress(io);
  const tenant = values.tenant ?? DEFAULT_TENANT;
  const pkg = values.package ?? DEFAULT_PACKAGE;
  const bad = tenantProblem(tenant)
    ? `--tenant ${JSON.stringify(tenant)} ${tenantProblem(tenant)}`
    : packageProblem(pkg)
      ? `--package ${JSON.stringify(pkg)} ${packageProblem(pkg)}`
      : undefined;
  if (bad) throw new UsageError(bad);
  const target = { tenant, package: pkg, schema: tenantSchema(tenant) };

  const { published, drafts } = await readInputs(io, stack, values.drafts);
  let files = verify(published, drafts);
  const notices = [...locateNotices([published, drafts])];
  // Every issue is placed in the file its artifact came from (runtime issues too: the stored
  // artifacts are the files' artifacts). --quiet and --max-warnings decide what is shown and the exit.
  let tooManyWarnings = false;
  const print = (report: PublishReport) => {
    const located = locateIssues(report.issues, files.graph, [published, drafts]);
    const gate = gateWarnings(located, { quiet: values.quiet, maxWarnings });
    tooManyWarnings = gate.tooMany;
    const footer = [...prettySummary(report), ...gate.footer];
    progress.end();
    writeReport(
      io,
      { command: 'publish', format, output: values.output, all: values.all, notices },
      { ...report, issues: gate.shown, ...(gate.hidden > 0 ? { hiddenWarnings: gate.hidden } : {}) },
      footer,
    );
  };
  const refuse = () => {
    print({ ok: false, outcome: 'refused', issues: files.issues, checked: { ...files.checked }, target });
    return EXIT.errors;
  };
  const where = platformOptionsFromEnv(io.env, io.cwd, values['data-dir']);
  // A new data folder holds no tenant: what the files refuse stays refused, and no database is made.
  if (!files.publishable && where.dataDir !== undefined && !existsSync(where.dataDir)) return refuse();

  const lockWait = lockWaitOf(io.env);
  if ('problem' in lockWait) {
    io.stderr(`bvl: ${lockWait.problem}\n`);
    return EXIT.cannotRun;
  }
  let platform: Platform;
  try {
    platform = await openPlatform({
      ...where,
      lockWaitMs: lockWait.ms,
      applicationName: cliApplicationName,
      onProgress: (step) =>
        progress.begin(
          step === 'start' ? `starting the embedded database (PGlite) at ${where.dataDir}` : step === 'migrate' ? 'preparing the bvl schema' : 'connecting',
        ),
    });
    progress.end();
  } catch (e) {
    progress.end();
    if (!files.publishable) {
      notices.push({
        message: `the tenant's published artifacts were not read (cannot open the database: ${(e as Error).message}); references to them were not resolved`,
      });
      return refuse();
    }
    io.stderr(`bvl: cannot open the database: ${(e as Error).message}\n`);
    return EXIT.cannotRun;
  }
  const located = { ...target, database: platform.location };
  // A wait for a lock (a metadata table another session holds, another publish of the package) is
  // told once on stderr after a moment, naming the holder; it ends at BVL_LOCK_WAIT_MS.
  let waitedFor: string | undefined;
  const told = new Set<string>();
  const tellWait = (w: { what: string; holders: string }) => {
    if (told.has(w.what)) return;
    told.add(w.what);
    waitedFor = w.what;
    progress.end();
    io.stderr(`bvl: waiting for ${w.what}, held by ${w.holders}; giving up after ${lockWait.ms / 1000} s (BVL_LOCK_WAIT_MS)\n`);
  };
  const stopWatching = watchLockWaits(platform, [cliApplicationName, publishApplicationName({ tenant, package: pkg })], tellWait);
  try {
    const scope = { tenant, package: pkg };
    // The files alone may name what another package of the tenant publishes (a lookup to its object):
    // judge them over the tenant's published state, as the publish gate and the HTTP API do.
    if (!files.publishable) {
      files = await verifyOverTenant(platform, scope, published, drafts);
      if (!files.publishable) return refuse();
    }
    // A new package one typo away from one the tenant has is most likely that one misspelt: say so
    // before publishing (its artifacts, if the other package owns them, are refused as duplicates).
    if (!(await packageExists(platform, scope))) {
      const near = didYouMean(pkg, await packagesOf(platform, tenant));
      if (near.length > 0)
        notices.push({
          message: `package ${JSON.stringify(pkg)} is new in tenant ${JSON.stringify(tenant)}; did you mean --package ${near[0]}? (the tenant has ${near.map((n) => JSON.stringify(n)).join(', ')}; this publish creates ${JSON.stringify(pkg)})`,
        });
    }
    const stage = [...mergeOverlay(published.artifacts, drafts?.artifacts ?? []).merged.values()];
    // The package's drafts become exactly this stack (stale drafts of an earlier run are dropped),
    // under the package lock the publish holds: a concurrent run waits its turn.
    const result = await publishBuild(platform, {
      ...scope,
      lockWaitMs: lockWait.ms,
      // The package's lock is waited for by trying (no blocked session for the watcher to see): told here.
      onLockWait: tellWait,
      // A republish that would lose or change existing rows proceeds only when asked (then says what changed).
      ...(values['allow-data-change'] ? { allowDataChange: true } : {}),
      prepare: async (pinned) => {
        await discardDrafts(pinned, scope).catch(() => 0);
        await stageDrafts(pinned, scope, stage);
      },
      onStep: (step) =>
        progress.begin(
          step === 'publish' ? `publishing ${stage.length} artifacts: metadata, tables, seeds` : 'probing the published app (seeds, views, widgets)',
        ),
    });
    progress.end();
    const checked = { ...(result.checked ?? files.checked) };
    if (result.outcome === 'refused') {
      print({ ok: false, outcome: 'refused', issues: result.issues, checked, target: located });
      return EXIT.errors;
    }
    if (result.outcome === 'failed') {
      io.stderr(`bvl: publish failed: ${result.error}\n`);
      print({ ok: false, outcome: 'failed', issues: files.issues, checked, target: located, ...(result.error ? { error: result.error } : {}) });
      return EXIT.errors;
    }
    if (result.outcome === 'nothing_to_publish') {
      print({ ok: true, outcome: 'nothing_to_publish', issues: files.issues, checked, target: located });
      return EXIT.clean;
    }
    const { rows: _rows, ...probes } = result.probes!;
    print({
      ok: result.ok,
      outcome: 'published',
      issues: result.issues,
      checked,
      seedApplied: result.seedApplied!,
      probes,
      target: located,
      published: result.items!.length,
    });
    return result.ok && !tooManyWarnings ? EXIT.clean : EXIT.errors;
  } catch (e) {
    // Issues are values; reaching here means the database went away, a lock was held too long, or a bug: one clear line.
    if (sqlState(e) === '55P03')
      io.stderr(
        `bvl: could not publish: gave up waiting ${lockWait.ms / 1000} s for ${waitedFor ?? 'a lock another session holds'} (BVL_LOCK_WAIT_MS); nothing was published\n`,
      );
    else io.stderr(`bvl: could not publish: ${(e as Error)?.message ?? String(e)}\n`);
    return EXIT.cannotRun;
  } finally {
    stopWatching();
    await platform.close().catch(() => {});
  }
}

/** The pretty footer: outcome, seeds, probe counts (a plane that probed nothing says why). */
function prettySummary(r: PublishReport): string[] {
  const where = `tenant "${r.target.tenant}" (schema ${r.target.schema})${r.target.database ? ` on ${r.target.database}` : ''}`;
  const lines: string[] = [];
  if (r.outcome === 'refused') lines.push(`publish refused: fix the errors above; nothing was published to ${where}`);
  else if (r.outcome === 'failed') lines.push(`publish failed and rolled back; ${where} is unchanged: ${r.error}`);
  else if (r.outcome === 'nothing_to_publish') lines.push(`nothing to publish to ${where}`);
  else lines.push(`published ${r.published} artifact${r.published === 1 ? '' : 's'} of package "${r.target.package}" to ${where}`);
  const s = r.seedApplied;
  if (s) {
    const failed = s.errors.length + s.errorsOmitted;
    lines.push(`seeds: ${s.inserted} inserted, ${s.updated} updated, ${s.skipped} skipped, ${failed} error${failed === 1 ? '' : 's'}`);
    for (const e of s.errors.slice(0, MAX_PRINTED_SEED_ERRORS))
      lines.push(`  seed ${e.seed} ${e.recordIndex < 0 ? '' : `record ${e.recordIndex} `}${e.field ? `field ${e.field}: ` : ''}${e.message}`);
    if (failed > MAX_PRINTED_SEED_ERRORS) lines.push(`  … and ${failed - MAX_PRINTED_SEED_ERRORS} more (see --format json)`);
  }
  if (r.probes) {
    const planes = (['seeds', 'views', 'widgets', 'objects'] as const).map((p) => `${p} ${r.probes!.checked[p]}/${r.probes!.total[p]}`);
    lines.push(`probes checked: ${planes.join(', ')}`);
    for (const [plane, why] of Object.entries(r.probes.unavailable)) lines.push(`  ${plane} not probed: ${why}`);
    // What a republish left unchanged carries the previous publish's result (see planCarry).
    const carried = r.probes.skipped.filter((k) => k.carriedFrom !== undefined);
    if (carried.length > 0)
      lines.push(
        `  ${carried.length} unchanged since publish #${carried[0]!.carriedFrom}, as is what they read: not probed again, that publish's result stands`,
      );
    const skipped = r.probes.skipped.length - carried.length;
    if (skipped > 0) lines.push(`  ${skipped} skipped (see --format json for each reason)`);
  }
  lines.push(checkedLine(r.checked));
  return lines;
}

/** The `application_name` of this CLI process's database sessions (its lock-wait watcher finds them by it). */
const cliApplicationName = `bvl cli ${process.pid}`;

/**
 * How long the CLI waits for a lock another session holds (a metadata table, the package's lock):
 * BVL_LOCK_WAIT_MS, default LOCK_WAIT_MS (60 s).
 */
export function lockWaitOf(env: Readonly<Record<string, string | undefined>>): { ms: number } | { problem: string } {
  const raw = env.BVL_LOCK_WAIT_MS?.trim();
  if (!raw) return { ms: LOCK_WAIT_MS };
  const ms = Number(raw);
  if (!Number.isSafeInteger(ms) || ms < 1)
    return { problem: `BVL_LOCK_WAIT_MS must be a whole number of milliseconds above 0 (got ${JSON.stringify(raw.slice(0, 40))})` };
  return { ms };
}
