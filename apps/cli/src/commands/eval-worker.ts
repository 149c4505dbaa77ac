import { duration, type EvalQueue, loadGoldenCases, openEvalQueue, runEvalWorker, type WorkerEvent, workerName } from '@bvl/eval-runner';
import { type CliIo, EXIT } from '../cli-io.ts';
import { parseCommandArgs, UsageError } from '../parse-args.ts';
import { evalAgentsFrom, judgeFrom } from './eval-agents.ts';
import { DEFAULT_CASES_DIR, gitCommit, intFlag, numberFlag, openDatabase, queueDatabase, resolvePath, withInterrupt } from './eval-shared.ts';

const describe = (e: WorkerEvent): string => {
  switch (e.kind) {
    case 'attempt':
      return `${e.status.padEnd(5)} ${e.key.case}/${e.key.variant} #${e.key.epoch} @ ${e.key.subject} of batch ${e.batch} (${duration(e.latencyMs)})`;
    case 'skipped':
      return `skipped ${e.key.case}/${e.key.variant} #${e.key.epoch} of batch ${e.batch}: ${e.why}`;
    case 'finished':
      return `batch ${e.batch} finished`;
    case 'nightly':
      return `nightly schedule: queued batch ${e.batch} (${e.attempts} attempts)`;
    case 'rate_limited':
      return `rate limited on ${e.key.case}/${e.key.variant} #${e.key.epoch} of batch ${e.batch}; this slot pauses ${Math.round(e.waitMs / 1000)} s and the job is retried`;
    case 'failed':
      return `job failed (it is retried): ${e.error}`;
  }
};

/**
 * `bvl eval-worker`: takes eval attempts off the PostgreSQL queue (`bvl eval --queue`) and runs
 * them; also fires the nightly schedule. Runs until SIGINT/SIGTERM (the attempts in flight finish)
 * or, with --idle-exit, until it has had nothing to do for that long.
 */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    argv,
    {
      concurrency: { type: 'string' },
      'cases-dir': { type: 'string' },
      timeout: { type: 'string' },
      'idle-exit': { type: 'string' },
      poll: { type: 'string' },
    },
    'eval-worker',
  );
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}; bvl eval-worker takes flags only`);
  const url = queueDatabase(io);
  const concurrency = intFlag('concurrency', values.concurrency, 1, 64) ?? 1;
  const timeout = numberFlag('timeout', values.timeout, 1, 86_400);
  const idleExit = numberFlag('idle-exit', values['idle-exit'], 1, 86_400);
  const poll = numberFlag('poll', values.poll, 0.5, 600) ?? 2;
  const casesDir = resolvePath(io, values['cases-dir'] ?? DEFAULT_CASES_DIR);
  const platform = await openDatabase(io);
  if (!platform) return EXIT.cannotRun;
  let queue: EvalQueue | undefined;
  try {
    queue = await openEvalQueue({ databaseUrl: url, schema: io.env.BVL_QUEUE_SCHEMA, schedule: true, pollingIntervalSeconds: poll });
    const name = workerName();
    const worker = await runEvalWorker({
      platform,
      queue,
      agentNamed: evalAgentsFrom({ env: io.env }),
      judgeNamed: (model) => judgeFrom({ env: io.env }, model),
      concurrency,
      pollingIntervalSeconds: poll,
      timeoutMs: timeout !== undefined ? timeout * 1000 : undefined,
      loadCases: () => loadGoldenCases(casesDir),
      gitCommit: await gitCommit(io),
      worker: name,
      onEvent: (e) => io.stdout(`bvl eval-worker ${name}: ${describe(e)}\n`),
    });
    io.stdout(`bvl eval-worker ${name}: taking eval attempts, ${concurrency} at once (stop with Ctrl-C)\n`);
    await withInterrupt(
      (signal) =>
        new Promise<void>((resolve) => {
          signal.addEventListener('abort', () => resolve(), { once: true });
          if (idleExit === undefined) return;
          const check = setInterval(() => {
            if (worker.busy() === 0 && Date.now() - worker.lastActive() > idleExit * 1000) {
              clearInterval(check);
              resolve();
            }
          }, 250);
          signal.addEventListener('abort', () => clearInterval(check), { once: true });
        }),
    );
    await worker.stop();
    io.stdout(`bvl eval-worker ${name}: stopped after ${worker.done()} attempt${worker.done() === 1 ? '' : 's'}\n`);
    return EXIT.clean;
  } catch (e) {
    io.stderr(`bvl eval-worker: ${(e as Error)?.message ?? String(e)}\n`);
    return EXIT.cannotRun;
  } finally {
    await queue?.close().catch(() => {});
    await platform.close().catch(() => {});
  }
}
