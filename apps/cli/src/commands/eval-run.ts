import {
  type BatchSummary,
  type Comparison,
  compareWithBaseline,
  DEFECT_FILTERS,
  type DefectFilter,
  duration,
  type EvalAgent,
  type EvalBatch,
  type EvalStatus,
  enqueueBatch,
  entryStatus,
  formatEvalSummary,
  formatProgress,
  type GoldenCase,
  GoldenCaseError,
  getBatch,
  loadGoldenCases,
  openEvalQueue,
  plannedAttempts,
  runEvals,
  type StoredAttempt,
  scheduleNightly,
  summarizeStoredBatch,
  unscheduleNightly,
  waitForBatch,
} from '@bvl/eval-runner';
import type { Platform } from '@bvl/platform';
import { type CliIo, EXIT } from '../cli-io.ts';
import { parseCommandArgs, parseFormat, UsageError } from '../parse-args.ts';
import { EVAL_AGENT_NAMES, evalAgentsFrom } from './eval-agents.ts';
import {
  DEFAULT_CASES_DIR,
  EXIT_MIN_PASS,
  gitCommit,
  intFlag,
  numberFlag,
  queueDatabase,
  resolvePath,
  withEvalDatabase,
  withInterrupt,
} from './eval-shared.ts';

const OPTIONS = {
  agent: { type: 'string' },
  cases: { type: 'string' },
  'cases-dir': { type: 'string' },
  defects: { type: 'string' },
  epochs: { type: 'string' },
  concurrency: { type: 'string' },
  timeout: { type: 'string' },
  suite: { type: 'string' },
  resume: { type: 'string' },
  baseline: { type: 'string' },
  'min-pass': { type: 'string' },
  format: { type: 'string' },
  queue: { type: 'boolean' },
  wait: { type: 'boolean' },
  schedule: { type: 'string' },
  unschedule: { type: 'boolean' },
} as const;

type Values = ReturnType<typeof parseCommandArgs<typeof OPTIONS>>['values'];

/** The parsed flags of a suite run. */
interface EvalFlags {
  readonly format: 'pretty' | 'json';
  readonly agent?: string | undefined;
  readonly cases?: string[] | undefined;
  readonly casesDir: string;
  readonly defects: DefectFilter;
  readonly epochs: number;
  readonly concurrency: number;
  readonly timeoutMs?: number | undefined;
  readonly suite: string;
  readonly resume?: number | undefined;
  readonly baseline?: number | undefined;
  readonly minPass?: number | undefined;
}

function parseFlags(values: Values, io: CliIo): EvalFlags {
  const format = parseFormat(values.format, ['pretty', 'json']);
  const defects = values.defects ?? 'all';
  if (!(DEFECT_FILTERS as readonly string[]).includes(defects))
    throw new UsageError(`--defects must be one of ${DEFECT_FILTERS.join(', ')} (got ${JSON.stringify(defects)})`);
  const resume = intFlag('resume', values.resume, 1, Number.MAX_SAFE_INTEGER);
  if (resume !== undefined) {
    const planned = (['cases', 'defects', 'epochs', 'suite', 'queue'] as const).filter((k) => values[k] !== undefined);
    if (planned.length > 0) throw new UsageError(`--resume continues a batch with its own plan; drop --${planned.join(', --')}`);
  }
  const suite = values.suite ?? 'golden';
  if (!/^[a-z0-9][a-z0-9_.-]{0,63}$/.test(suite)) throw new UsageError(`--suite must be lowercase letters, digits, _ . - (got ${JSON.stringify(suite)})`);
  const timeout = numberFlag('timeout', values.timeout, 1, 86_400);
  return {
    format,
    agent: values.agent,
    cases: values.cases
      ?.split(',')
      .map((c) => c.trim())
      .filter((c) => c.length > 0),
    casesDir: resolvePath(io, values['cases-dir'] ?? DEFAULT_CASES_DIR),
    defects: defects as DefectFilter,
    epochs: intFlag('epochs', values.epochs, 1, 100) ?? 1,
    concurrency: intFlag('concurrency', values.concurrency, 1, 64) ?? 1,
    timeoutMs: timeout !== undefined ? timeout * 1000 : undefined,
    suite,
    resume,
    baseline: intFlag('baseline', values.baseline, 1, Number.MAX_SAFE_INTEGER),
    minPass: numberFlag('min-pass', values['min-pass'], 0, 1),
  };
}

function agentOf(name: string, env: Readonly<Record<string, string | undefined>>): EvalAgent {
  const agent = evalAgentsFrom(env)(name);
  if (!agent) throw new UsageError(`unknown agent ${JSON.stringify(name)}; this build has: ${EVAL_AGENT_NAMES.join(', ')}`);
  return agent;
}

async function selectCases(flags: EvalFlags): Promise<GoldenCase[]> {
  const all = await loadGoldenCases(flags.casesDir);
  if (!flags.cases) return all;
  const unknown = flags.cases.filter((n) => !all.some((c) => c.name === n));
  if (unknown.length > 0)
    throw new UsageError(
      `--cases names ${unknown.map((n) => JSON.stringify(n)).join(', ')}, not in ${flags.casesDir} (it has: ${all.map((c) => c.name).join(', ')})`,
    );
  return all.filter((c) => flags.cases!.includes(c.name));
}

/** `bvl eval`: runs the golden suite (or continues a batch, or queues it), then reports and compares. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, OPTIONS, 'eval');
  if (positionals.length > 0)
    throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}; bvl eval takes flags, or the subcommands report and add-case`);
  const flags = parseFlags(values, io);
  if (!values.queue && (values.wait || values.schedule !== undefined || values.unschedule))
    throw new UsageError('--wait, --schedule and --unschedule go with --queue');
  const queueUrl = values.queue ? queueDatabase(io) : undefined;
  // Cases and agent are checked before the database opens: a typo costs nothing.
  const cases = flags.resume === undefined && !values.unschedule ? await selectCases(flags).catch(rethrowCases) : undefined;
  if (flags.agent !== undefined || flags.resume === undefined) agentOf(flags.agent ?? 'blueprint', io.env);

  return withEvalDatabase(io, async (platform) => {
    if (queueUrl !== undefined) return await queued(platform, io, flags, values, queueUrl, cases ?? []);
    const agent = agentOf(flags.agent ?? (flags.resume !== undefined ? ((await getBatch(platform, flags.resume))?.agent ?? 'blueprint') : 'blueprint'), io.env);
    const commit = await gitCommit(io);
    const started = performance.now();
    const progress = progressPrinter(io);
    const result = await withInterrupt((signal) =>
      runEvals({
        platform,
        agent,
        cases,
        suite: flags.suite,
        epochs: flags.epochs,
        defects: flags.defects,
        resume: flags.resume,
        gitCommit: commit,
        concurrency: flags.concurrency,
        timeoutMs: flags.timeoutMs,
        signal,
        onProgress: progress.on,
      }),
    );
    progress.end();
    const { summary, attempts } = await summarizeStoredBatch(platform, result.batch, { full: true });
    const comparison = await compareWithBaseline(platform, result.batch, summary, flags.baseline);
    return report(io, flags, { batch: result.batch, summary, attempts, comparison, wallMs: performance.now() - started, complete: result.complete });
  });
}

function rethrowCases(e: unknown): never {
  if (e instanceof GoldenCaseError) throw new UsageError(`the golden cases cannot be loaded:\n${e.message}`);
  throw e;
}

/** Prints progress: a bar on a terminal, a line per attempt otherwise (CI logs). */
function progressPrinter(io: CliIo) {
  const t0 = performance.now();
  let ran = 0;
  let drawn = false;
  let note: string | undefined;
  let last: { done: number; total: number; counts: Record<EvalStatus, number> } | undefined;
  const draw = () => {
    if (!last) return;
    io.stderr(`\r${formatProgress({ ...last, elapsedMs: performance.now() - t0, ran, note })}\u001b[K`);
    drawn = true;
  };
  return {
    on(event: Parameters<NonNullable<Parameters<typeof runEvals>[0]['onProgress']>>[0]) {
      if (event.kind === 'start') {
        io.stderr(
          `bvl eval: batch ${event.batch} — ${event.total - event.done} of ${event.total} attempts to run${event.swept ? ` (dropped ${event.swept} orphaned tenant${event.swept === 1 ? '' : 's'})` : ''}; if stopped, continue with bvl eval --resume ${event.batch}\n`,
        );
        last = { done: event.done, total: event.total, counts: { pass: 0, fail: 0, error: 0, limit: 0 } };
        if (io.isTty) draw();
      } else if (event.kind === 'attempt') {
        ran++;
        last = { done: event.done, total: event.total, counts: { ...event.counts } };
        if (io.isTty) draw();
        else
          io.stderr(
            `bvl eval: ${event.status.padEnd(5)} ${event.key.case}/${event.key.variant} #${event.key.epoch} (${duration(event.latencyMs)}) [${event.done}/${event.total}]\n`,
          );
      } else {
        note = event.event.kind === 'backoff' ? `rate limited: ${event.event.limit} at once` : undefined;
        if (io.isTty) draw();
        else if (event.event.kind === 'backoff')
          io.stderr(`bvl eval: rate limited; ${event.event.limit} attempt(s) at once, pausing ${Math.round((event.event.waitMs ?? 0) / 1000)} s\n`);
      }
    },
    end() {
      if (drawn) io.stderr('\n');
    },
  };
}

/** What the summary, JSON and exit code are made of. */
interface Outcome {
  readonly batch: EvalBatch;
  readonly summary: BatchSummary;
  readonly attempts: readonly StoredAttempt[];
  readonly comparison: Comparison | null;
  readonly wallMs?: number | undefined;
  readonly complete: boolean;
}

/** Prints the outcome and returns the exit code: 2 stopped or infrastructure errors, 100 below --min-pass, else 0. */
function report(io: CliIo, flags: EvalFlags, o: Outcome): number {
  const { batch, summary: s } = o;
  if (flags.format === 'json') {
    const cases = s.entries.map((e) => ({
      case: e.case,
      variant: e.variant,
      version: e.version,
      status: entryStatus(e),
      attempts: e.attempts,
      pass: e.pass,
      fail: e.fail,
      error: e.error,
      limit: e.limit,
      passAt1: e.passAt1,
      passAtK: e.passAtK,
      passHatK: e.passHatK,
      failures: o.attempts
        .filter((a) => a.case === e.case && a.variant === e.variant && a.status !== 'pass')
        .map((a) => ({ epoch: a.epoch, status: a.status, reason: a.failureReason, stopReason: a.stopReason, repairRounds: a.repairRounds, issues: a.issues })),
    }));
    const out = {
      batch: batch.id,
      suite: batch.suite,
      agent: batch.agent,
      model: batch.model ?? null,
      gitCommit: batch.gitCommit ?? null,
      epochs: batch.epochs,
      complete: o.complete,
      cases,
      attempts: s.attempts,
      planned: s.planned,
      pass: s.pass,
      fail: s.fail,
      error: s.error,
      limit: s.limit,
      passRate: s.passRate,
      passAt1: s.passAt1,
      passAtK: s.passAtK,
      passHatK: s.passHatK,
      meanLatencyMs: s.meanLatencyMs,
      ...(o.wallMs !== undefined ? { wallMs: Math.round(o.wallMs) } : {}),
      baseline: o.comparison,
    };
    io.stdout(`${JSON.stringify(out, null, 2)}\n`);
  } else io.stdout(formatEvalSummary({ batch, summary: s, comparison: o.comparison, wallMs: o.wallMs, complete: o.complete }));
  if (!o.complete) {
    io.stderr(`bvl: batch ${batch.id} stopped before every attempt ran; continue with bvl eval --resume ${batch.id}\n`);
    return EXIT.cannotRun;
  }
  if (s.error > 0) {
    io.stderr(`bvl: ${s.error} attempt${s.error === 1 ? '' : 's'} hit an infrastructure error (not a verdict on the agent); see the failure reasons\n`);
    return EXIT.cannotRun;
  }
  if (flags.minPass !== undefined && (s.passRate ?? 0) < flags.minPass) {
    io.stderr(`bvl: pass rate ${((s.passRate ?? 0) * 100).toFixed(1)}% is below --min-pass ${(flags.minPass * 100).toFixed(1)}%\n`);
    return EXIT_MIN_PASS;
  }
  return EXIT.clean;
}

/** `--queue`: enqueue a batch (and wait for it), or set / remove the nightly schedule. */
async function queued(platform: Platform, io: CliIo, flags: EvalFlags, values: Values, url: string, cases: GoldenCase[]): Promise<number> {
  const queue = await openEvalQueue({ databaseUrl: url, schema: io.env.BVL_QUEUE_SCHEMA });
  try {
    const agentName = flags.agent ?? 'blueprint';
    if (values.unschedule) {
      await unscheduleNightly(queue);
      io.stdout('removed the nightly eval schedule\n');
      return EXIT.clean;
    }
    if (values.schedule !== undefined) {
      await scheduleNightly(queue, values.schedule, {
        agent: agentName,
        suite: values.suite ?? 'nightly',
        epochs: flags.epochs,
        defects: flags.defects,
        ...(flags.cases ? { cases: flags.cases } : {}),
      });
      io.stdout(`scheduled a nightly eval batch at "${values.schedule}" (UTC): agent ${agentName}; a running bvl eval-worker starts it\n`);
      return EXIT.clean;
    }
    const agent = agentOf(agentName, io.env);
    const batch = await enqueueBatch(platform, queue, {
      suite: flags.suite,
      agent: agent.name,
      model: agent.model,
      endpoint: agent.endpoint,
      gitCommit: await gitCommit(io),
      cases,
      epochs: flags.epochs,
      defects: flags.defects,
      timeoutMs: flags.timeoutMs,
    });
    const total = plannedAttempts(batch);
    io.stderr(`bvl eval: batch ${batch.id} queued — ${total} attempts; bvl eval-worker processes (any number, any machine) run them\n`);
    if (!values.wait) {
      if (flags.format === 'json') io.stdout(`${JSON.stringify({ batch: batch.id, queued: total }, null, 2)}\n`);
      else io.stdout(`batch ${batch.id}: ${total} attempts queued\n`);
      return EXIT.clean;
    }
    const started = performance.now();
    let lastDone = -1;
    const complete = await withInterrupt((signal) =>
      waitForBatch(platform, batch, {
        signal,
        onCounts: (counts, done) => {
          if (done === lastDone) return;
          lastDone = done;
          if (io.isTty) io.stderr(`\r${formatProgress({ done, total, counts, elapsedMs: performance.now() - started, ran: done })}\u001b[K`);
        },
      }),
    );
    if (io.isTty) io.stderr('\n');
    const stored = (await getBatch(platform, batch.id))!;
    const { summary, attempts } = await summarizeStoredBatch(platform, stored, { full: true });
    const comparison = await compareWithBaseline(platform, stored, summary, flags.baseline);
    return report(io, flags, { batch: stored, summary, attempts, comparison, wallMs: performance.now() - started, complete });
  } finally {
    await queue.close().catch(() => {});
  }
}
