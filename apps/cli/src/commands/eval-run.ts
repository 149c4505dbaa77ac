import {
  type AttemptBudget,
  type BatchSummary,
  type Cassette,
  CassetteError,
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
  formatJunit,
  formatProgress,
  type GoldenCase,
  GoldenCaseError,
  getBatch,
  loadGoldenCases,
  openCassette,
  openEvalQueue,
  plannedAttempts,
  type RubricJudge,
  runEvals,
  type StoredAttempt,
  scheduleNightly,
  subjectOf,
  summarizeStoredBatch,
  unscheduleNightly,
  waitForBatch,
} from '@bvl/eval-runner';
import type { Platform } from '@bvl/platform';
import { type CliIo, EXIT } from '../cli-io.ts';
import { parseCommandArgs, parseFormat, UsageError } from '../parse-args.ts';
import { EVAL_AGENT_NAMES, evalAgentsFrom, judgeFrom, type ModelTransport } from './eval-agents.ts';
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
  'fail-on-regression': { type: 'boolean' },
  model: { type: 'string' },
  'judge-model': { type: 'string' },
  'budget-tokens': { type: 'string' },
  'budget-usd': { type: 'string' },
  'budget-seconds': { type: 'string' },
  record: { type: 'string' },
  replay: { type: 'string' },
  format: { type: 'string' },
  queue: { type: 'boolean' },
  wait: { type: 'boolean' },
  schedule: { type: 'string' },
  unschedule: { type: 'boolean' },
} as const;

type Values = ReturnType<typeof parseCommandArgs<typeof OPTIONS>>['values'];

/** `--budget-tokens`, `--budget-usd`, `--budget-seconds`: the cap on every model attempt's budget (a case's own budget only goes down). */
function attemptCap(values: Values): AttemptBudget | undefined {
  const num = (flag: string, raw: string | undefined, ok: (n: number) => boolean, want: string) => {
    if (raw === undefined) return undefined;
    const n = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(n) || !ok(n)) throw new UsageError(`${flag} takes ${want} (got ${JSON.stringify(raw)})`);
    return n;
  };
  const tokens = num('--budget-tokens', values['budget-tokens'], (n) => Number.isInteger(n) && n > 0, 'a positive integer');
  const usd = num('--budget-usd', values['budget-usd'], (n) => n > 0, 'a positive number of US dollars');
  const seconds = num('--budget-seconds', values['budget-seconds'], (n) => n > 0 && n <= 86_400, 'a positive number of seconds (at most 86400)');
  if (tokens === undefined && usd === undefined && seconds === undefined) return undefined;
  return { ...(tokens !== undefined ? { tokens } : {}), ...(usd !== undefined ? { usd } : {}), ...(seconds !== undefined ? { seconds } : {}) };
}

/** The parsed flags of a suite run. */
interface EvalFlags {
  readonly format: 'pretty' | 'json' | 'junit';
  /** Agents named by --agent (a list makes a matrix); absent: blueprint, or the resumed batch's. */
  readonly agents?: string[] | undefined;
  /** Models named by --model (a list makes a matrix of the agents that take one). */
  readonly models?: string[] | undefined;
  readonly judgeModel?: string | undefined;
  readonly record?: string | undefined;
  readonly replay?: string | undefined;
  readonly failOnRegression: boolean;
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

/** A comma-separated list flag: its items, trimmed, without empties or repeats. */
const list = (v: string | undefined): string[] | undefined =>
  v === undefined
    ? undefined
    : [
        ...new Set(
          v
            .split(',')
            .map((x) => x.trim())
            .filter((x) => x.length > 0),
        ),
      ];

function parseFlags(values: Values, io: CliIo): EvalFlags {
  const format = parseFormat(values.format, ['pretty', 'json', 'junit']);
  if (values.record !== undefined && values.replay !== undefined)
    throw new UsageError('--record and --replay cannot go together: record a cassette, then replay it');
  const agents = list(values.agent);
  const models = list(values.model);
  if (agents !== undefined && agents.length === 0) throw new UsageError('--agent names no agent');
  if (models !== undefined && models.length === 0) throw new UsageError('--model names no model');
  const defects = values.defects ?? 'all';
  if (!(DEFECT_FILTERS as readonly string[]).includes(defects))
    throw new UsageError(`--defects must be one of ${DEFECT_FILTERS.join(', ')} (got ${JSON.stringify(defects)})`);
  const resume = intFlag('resume', values.resume, 1, Number.MAX_SAFE_INTEGER);
  if (resume !== undefined) {
    const planned = (['cases', 'defects', 'epochs', 'suite', 'queue', 'agent', 'model', 'judge-model'] as const).filter((k) => values[k] !== undefined);
    if (planned.length > 0) throw new UsageError(`--resume continues a batch with its own plan; drop --${planned.join(', --')}`);
  }
  const suite = values.suite ?? 'golden';
  if (!/^[a-z0-9][a-z0-9_.-]{0,63}$/.test(suite)) throw new UsageError(`--suite must be lowercase letters, digits, _ . - (got ${JSON.stringify(suite)})`);
  const timeout = numberFlag('timeout', values.timeout, 1, 86_400);
  return {
    format,
    agents,
    models,
    judgeModel: values['judge-model']?.trim() || undefined,
    record: values.record !== undefined ? resolvePath(io, values.record) : undefined,
    replay: values.replay !== undefined ? resolvePath(io, values.replay) : undefined,
    failOnRegression: values['fail-on-regression'] === true,
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

function agentOf(agentsNamed: ReturnType<typeof evalAgentsFrom>, name: string, model?: string | null): EvalAgent {
  const agent = agentsNamed(name, model);
  if (!agent) throw new UsageError(`unknown agent ${JSON.stringify(name)}; this build has: ${EVAL_AGENT_NAMES.join(', ')}`);
  return agent;
}

/**
 * The subjects of a new batch: each agent of --agent, and for an agent that runs a model, each
 * model of --model (else BVL_MODEL, else — replaying — every model the cassette recorded but the
 * judge's). An agent without a model (blueprint) given --model alone is a usage error.
 */
function subjectsOf(flags: EvalFlags, agentsNamed: ReturnType<typeof evalAgentsFrom>, transport: ModelTransport): EvalAgent[] {
  const names = flags.agents ?? ['blueprint'];
  const takesModel = (n: string) => n === 'openai';
  if (flags.models && !names.some(takesModel)) throw new UsageError(`--model is for an agent that runs a model (--agent openai); ${names.join(', ')} has none`);
  const replayed = transport.cassette?.mode === 'replay' ? transport.cassette.models().filter((m) => m !== flags.judgeModel) : [];
  const models = flags.models ?? (transport.env.BVL_MODEL?.trim() ? [transport.env.BVL_MODEL.trim()] : replayed.length ? replayed : [undefined]);
  return names.flatMap((n) => (takesModel(n) ? models.map((m) => agentOf(agentsNamed, n, m)) : [agentOf(agentsNamed, n)]));
}

/** Opens the cassette of --record / --replay; a directory that cannot be used is one line and exit 2. */
async function cassetteOf(flags: EvalFlags): Promise<Cassette | undefined> {
  if (flags.replay) return openCassette({ mode: 'replay', dir: flags.replay });
  if (flags.record) return openCassette({ mode: 'record', dir: flags.record, fetch: globalThis.fetch });
  return undefined;
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
    throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}; bvl eval takes flags, or the subcommands report, show and add-case`);
  const flags = parseFlags(values, io);
  if (!values.queue && (values.wait || values.schedule !== undefined || values.unschedule))
    throw new UsageError('--wait, --schedule and --unschedule go with --queue');
  if (values.queue && (flags.record || flags.replay))
    throw new UsageError("--record and --replay run locally; the queue's workers call the endpoint themselves");
  const queueUrl = values.queue ? queueDatabase(io) : undefined;
  // Cases, cassette and agents are checked before the database opens: a typo costs nothing.
  const cases = flags.resume === undefined && !values.unschedule ? await selectCases(flags).catch(rethrowCases) : undefined;
  let cassette: Cassette | undefined;
  try {
    cassette = await cassetteOf(flags);
  } catch (e) {
    if (!(e instanceof CassetteError)) throw e;
    io.stderr(`bvl: ${e.message}\n`);
    return EXIT.cannotRun;
  }
  const transport: ModelTransport = { env: io.env, cassette, budget: attemptCap(values) };
  const agentsNamed = evalAgentsFrom(transport);
  const fresh = flags.resume === undefined && !values.unschedule && values.schedule === undefined ? subjectsOf(flags, agentsNamed, transport) : undefined;
  const judge: RubricJudge | undefined = flags.judgeModel ? judgeFrom(transport, flags.judgeModel) : undefined;

  return withEvalDatabase(io, async (platform) => {
    if (queueUrl !== undefined) return await queued(platform, io, flags, values, queueUrl, cases ?? [], fresh ?? []);
    let agents = fresh;
    if (agents === undefined) {
      const batch = await getBatch(platform, flags.resume!);
      // runEvals names an unknown batch; the agents of a known one are its subjects.
      agents = batch ? batch.subjects.map((s) => agentOf(agentsNamed, s.agent, s.model)) : [agentOf(agentsNamed, 'blueprint')];
    }
    const commit = await gitCommit(io);
    const started = performance.now();
    const progress = progressPrinter(io);
    const result = await withInterrupt((signal) =>
      runEvals({
        platform,
        agents,
        cases,
        suite: flags.suite,
        epochs: flags.epochs,
        defects: flags.defects,
        resume: flags.resume,
        gitCommit: commit,
        concurrency: flags.concurrency,
        timeoutMs: flags.timeoutMs,
        judge,
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
            `bvl eval: ${event.status.padEnd(5)} ${event.key.case}/${event.key.variant}${event.key.prompt !== 'default' ? ` ~${event.key.prompt}` : ''} #${event.key.epoch} @ ${event.key.subject} (${duration(event.latencyMs)}) [${event.done}/${event.total}]\n`,
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

/** Prints the outcome and returns the exit code: 2 stopped or infrastructure errors, 100 below --min-pass or (with --fail-on-regression) a regression, else 0. */
function report(io: CliIo, flags: EvalFlags, o: Outcome): number {
  const { batch, summary: s } = o;
  if (flags.format === 'junit') io.stdout(formatJunit({ batch, summary: s, attempts: o.attempts }));
  else if (flags.format === 'json') io.stdout(`${JSON.stringify(jsonReport(o), null, 2)}\n`);
  else io.stdout(formatEvalSummary({ batch, summary: s, comparison: o.comparison, wallMs: o.wallMs, complete: o.complete }));
  if (!o.complete) {
    io.stderr(`bvl: batch ${batch.id} stopped before every attempt ran; continue with bvl eval --resume ${batch.id}\n`);
    return EXIT.cannotRun;
  }
  if (s.error > 0) {
    io.stderr(`bvl: ${s.error} attempt${s.error === 1 ? '' : 's'} hit an infrastructure error (not a verdict on the agent); see the failure reasons\n`);
    return EXIT.cannotRun;
  }
  let code: number = EXIT.clean;
  if (flags.minPass !== undefined && (s.passRate ?? 0) < flags.minPass) {
    io.stderr(`bvl: pass rate ${((s.passRate ?? 0) * 100).toFixed(1)}% is below --min-pass ${(flags.minPass * 100).toFixed(1)}%\n`);
    code = EXIT_MIN_PASS;
  }
  if (flags.failOnRegression) {
    const c = o.comparison;
    if (c === null) io.stderr('bvl: --fail-on-regression: no baseline batch to compare with (the first of its suite, defect sets and subjects)\n');
    else if (c.regressed.length > 0) {
      const named = c.regressed.map(
        (x) =>
          `${x.case}/${x.variant}${x.prompt !== 'default' ? ` ~${x.prompt}` : ''} @ ${x.subject} ${(x.before * 100).toFixed(0)}% → ${(x.after * 100).toFixed(0)}%`,
      );
      io.stderr(`bvl: ${c.regressed.length} entr${c.regressed.length === 1 ? 'y' : 'ies'} regressed against batch ${c.batch}: ${named.join(', ')}\n`);
      code = EXIT_MIN_PASS;
    }
  }
  return code;
}

/** The JSON report: the batch, each entry with its failures, the subjects side by side, spend, and the comparison. */
function jsonReport(o: Outcome) {
  const { batch, summary: s } = o;
  const cases = s.entries.map((e) => ({
    case: e.case,
    variant: e.variant,
    prompt: e.prompt,
    subject: e.subject,
    version: e.version,
    status: entryStatus(e),
    expected: e.expected,
    attempts: e.attempts,
    pass: e.pass,
    fail: e.fail,
    error: e.error,
    limit: e.limit,
    passAt1: e.passAt1,
    passAtK: e.passAtK,
    passHatK: e.passHatK,
    meanRounds: e.meanRounds,
    tokensIn: e.tokensIn,
    tokensOut: e.tokensOut,
    costUsd: e.costUsd,
    judgeCostUsd: e.judgeCostUsd,
    failures: o.attempts
      .filter((a) => a.case === e.case && a.variant === e.variant && a.prompt === e.prompt && a.subject === e.subject && a.status !== 'pass')
      .map((a) => ({ epoch: a.epoch, status: a.status, reason: a.failureReason, stopReason: a.stopReason, repairRounds: a.repairRounds, issues: a.issues })),
  }));
  return {
    batch: batch.id,
    suite: batch.suite,
    agent: batch.agent,
    model: batch.model ?? null,
    judge: batch.judge ?? null,
    defects: batch.defects ?? null,
    gitCommit: batch.gitCommit ?? null,
    epochs: batch.epochs,
    complete: o.complete,
    cases,
    subjects: s.subjects,
    spend: {
      tokensIn: s.tokensIn,
      tokensOut: s.tokensOut,
      costUsd: s.costUsd,
      judgeTokensIn: s.judgeTokensIn,
      judgeTokensOut: s.judgeTokensOut,
      judgeCostUsd: s.judgeCostUsd,
      perCase: s.cases,
    },
    attempts: s.attempts,
    planned: s.planned,
    pass: s.pass,
    fail: s.fail,
    error: s.error,
    limit: s.limit,
    expectedFail: s.expectedFail,
    unexpectedFail: s.unexpectedFail,
    unexpectedPass: s.unexpectedPass,
    passRate: s.passRate,
    passAt1: s.passAt1,
    passAtK: s.passAtK,
    passHatK: s.passHatK,
    meanLatencyMs: s.meanLatencyMs,
    ...(o.wallMs !== undefined ? { wallMs: Math.round(o.wallMs) } : {}),
    baseline: o.comparison,
  };
}

/** `--queue`: enqueue a batch (and wait for it), or set / remove the nightly schedule. */
async function queued(
  platform: Platform,
  io: CliIo,
  flags: EvalFlags,
  values: Values,
  url: string,
  cases: GoldenCase[],
  agents: readonly EvalAgent[],
): Promise<number> {
  const queue = await openEvalQueue({ databaseUrl: url, schema: io.env.BVL_QUEUE_SCHEMA });
  try {
    if ((flags.agents?.length ?? 1) > 1 && values.schedule !== undefined)
      throw new UsageError('a nightly schedule runs one agent (over any number of --model)');
    const agentName = flags.agents?.[0] ?? 'blueprint';
    if (values.unschedule) {
      await unscheduleNightly(queue);
      io.stdout('removed the nightly eval schedule\n');
      return EXIT.clean;
    }
    if (values.schedule !== undefined) {
      await scheduleNightly(queue, values.schedule, {
        agent: agentName,
        ...(flags.models ? { models: flags.models } : {}),
        ...(flags.judgeModel ? { judge: flags.judgeModel } : {}),
        suite: values.suite ?? 'nightly',
        epochs: flags.epochs,
        defects: flags.defects,
        ...(flags.cases ? { cases: flags.cases } : {}),
      });
      io.stdout(`scheduled a nightly eval batch at "${values.schedule}" (UTC): agent ${agentName}; a running bvl eval-worker starts it\n`);
      return EXIT.clean;
    }
    const batch = await enqueueBatch(platform, queue, {
      suite: flags.suite,
      subjects: agents.map(subjectOf),
      judge: flags.judgeModel ?? null,
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
