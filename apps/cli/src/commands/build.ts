import { type AgentClient, agentClientFromEnv, type BuildProgress, type BuildResult, BuildSetupError, runBuild } from '@bvl/build-agent';
import { readSource } from '@bvl/metadata';
import { discardDrafts, packageProblem, stageDrafts, tenantProblem } from '@bvl/platform';
import { formatCardText, MAX_GOAL_LENGTH, MAX_MAX_ROUNDS, SessionError } from '@bvl/verify-build';
import { type CliIo, EXIT } from '../cli-io.ts';
import { COMMAND_HELP } from '../command-help.ts';
import { parseCommandArgs, UsageError } from '../parse-args.ts';
import { openDatabase } from './eval-shared.ts';
import { DEFAULT_PACKAGE, DEFAULT_TENANT } from './publish.ts';

/** What `bvl build --format json` prints. */
export interface BuildReport {
  readonly ok: boolean;
  readonly published: boolean;
  readonly session: { readonly id: string; readonly rounds: number; readonly stopReason: string | null };
  readonly issues: BuildResult['issues'];
  readonly card: BuildResult['card'];
  readonly summary: string;
  readonly usage: BuildResult['usage'];
  /** Spend by stage: the build's model turns, and the intent review's judge. */
  readonly cost: { readonly build: StageCost; readonly review: StageCost & { readonly judge: string } };
  /** Problems beside the build that did not stop it (a transcript that could not be stored). */
  readonly warnings?: readonly string[];
  readonly error?: string;
  /** Clean, but the last turn went over a budget: by how much. */
  readonly overrun?: string;
}

type StageCost = { readonly tokensIn: number; readonly tokensOut: number; readonly costUsd: number };

const number = (flag: string, raw: string | undefined, check: (n: number) => boolean, want: string): number | undefined => {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || !check(n)) throw new UsageError(`${flag} must be ${want} (got ${JSON.stringify(raw)})`);
  return n;
};

/** One progress line (printed on a TTY). */
function progressLine(e: BuildProgress): string {
  switch (e.kind) {
    case 'round': {
      const counts = `${e.errors} error${e.errors === 1 ? '' : 's'}, ${e.warnings} warning${e.warnings === 1 ? '' : 's'}`;
      const fixes = `${e.fixed ? ` · fixed ${e.fixed}` : ''}${e.autoFixed ? ` · auto-fixed ${e.autoFixed}` : ''}`;
      return `round ${e.round} ${e.roundKind}: ${counts}${fixes} → ${e.stopReason ?? e.next}`;
    }
    case 'retry':
      return `model call retry ${e.attempt} in ${e.delayMs} ms: ${e.why}`;
    case 'review':
      return `intent review: ${e.verdict}${e.warnings ? ` (${e.warnings} warning${e.warnings === 1 ? '' : 's'})` : ''}`;
  }
}

/**
 * `bvl build "<prompt>"`: the built-in agent builds (or, with --from, repairs) the package's app
 * through the draft store, bounded by a build session, and publishes it only when verify says so.
 * Ctrl-C ends the session as `cancelled`. Exit 0 when the build ended clean and published, 1 when
 * it stopped with issues, 2 when it could not run (no endpoint, bad input, database or endpoint
 * unreachable).
 */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const usage = COMMAND_HELP.build.usage;
  const { values, positionals } = parseCommandArgs(
    argv,
    {
      tenant: { type: 'string' },
      package: { type: 'string' },
      'max-rounds': { type: 'string' },
      'budget-usd': { type: 'string' },
      'budget-tokens': { type: 'string' },
      'budget-seconds': { type: 'string' },
      from: { type: 'string' },
      format: { type: 'string' },
      'data-dir': { type: 'string' },
      'judge-model': { type: 'string' },
      resume: { type: 'string' },
    },
    'build',
  );
  const resume = values.resume;
  if (resume !== undefined && (positionals.length > 0 || values.from !== undefined))
    throw new UsageError("--resume goes on with a session's own goal and drafts: give no prompt and no --from");
  if (resume === undefined && (positionals.length !== 1 || positionals[0]!.trim() === ''))
    throw new UsageError(`${positionals.length > 1 ? `expected one prompt, got ${positionals.length} (quote it)` : 'missing the prompt'}\n${usage}`);
  const prompt = positionals[0] ?? '';
  if (prompt.length > MAX_GOAL_LENGTH) throw new UsageError(`the prompt is ${prompt.length} characters, over the ${MAX_GOAL_LENGTH}-character limit`);
  const format = values.format ?? 'pretty';
  if (format !== 'pretty' && format !== 'json') throw new UsageError(`--format must be pretty or json (got ${JSON.stringify(format)})`);
  const tenant = values.tenant ?? DEFAULT_TENANT;
  const pkg = values.package ?? DEFAULT_PACKAGE;
  if (tenantProblem(tenant)) throw new UsageError(`--tenant ${JSON.stringify(tenant)} ${tenantProblem(tenant)}`);
  if (packageProblem(pkg)) throw new UsageError(`--package ${JSON.stringify(pkg)} ${packageProblem(pkg)}`);
  const maxRounds = number(
    '--max-rounds',
    values['max-rounds'],
    (n) => Number.isInteger(n) && n >= 0 && n <= MAX_MAX_ROUNDS,
    `an integer from 0 to ${MAX_MAX_ROUNDS}`,
  );
  const budgetUsd = number('--budget-usd', values['budget-usd'], (n) => n > 0, 'a positive number of US dollars');
  const budgetTokens = number('--budget-tokens', values['budget-tokens'], (n) => Number.isInteger(n) && n > 0, 'a positive integer');
  const budgetSeconds = number('--budget-seconds', values['budget-seconds'], (n) => n > 0 && n <= 86_400, 'a positive number of seconds (at most 86400)');

  const configured = agentClientFromEnv(io.env);
  if ('problem' in configured) {
    io.stderr(`bvl: ${configured.problem}\n`);
    return EXIT.cannotRun;
  }
  const client: AgentClient = configured.client;
  // The intent review's judge: --judge-model, else BVL_JUDGE_MODEL, else the builder's own model.
  const judgeModel = (values['judge-model'] ?? io.env.BVL_JUDGE_MODEL)?.trim() || undefined;
  if (values['judge-model'] !== undefined && !judgeModel) throw new UsageError('--judge-model needs a model name');
  const judged = judgeModel && judgeModel !== client.model ? agentClientFromEnv({ ...io.env, BVL_MODEL: judgeModel }) : { client };
  if ('problem' in judged) {
    io.stderr(`bvl: ${judged.problem}\n`);
    return EXIT.cannotRun;
  }
  const judge = judged.client;
  const from = values.from !== undefined ? await readSource(values.from, { draft: true, cwd: io.cwd }) : undefined;
  if (from && from.problems.length > 0) {
    const p = from.problems[0]!;
    io.stderr(
      `bvl: --from ${values.from}: ${from.problems.length} artifact(s) cannot be loaded, so the app cannot be staged as it is (first: ${p.type} ${p.name}: ${p.message}); run bvl verify on it\n`,
    );
    return EXIT.cannotRun;
  }

  const platform = await openDatabase(io, values['data-dir']);
  if (!platform) return EXIT.cannotRun;
  const controller = new AbortController();
  const onSigint = () => controller.abort(new Error('interrupted (Ctrl-C)'));
  process.once('SIGINT', onSigint);
  try {
    const scope = { tenant, package: pkg };
    if (from) {
      // The package's drafts become exactly the given app.
      await discardDrafts(platform, scope);
      await stageDrafts(platform, scope, from);
    }
    const result = await runBuild({
      platform,
      scope,
      prompt,
      client,
      bounds: {
        ...(maxRounds !== undefined ? { maxRounds } : {}),
        ...(budgetUsd !== undefined ? { budgetUsd } : {}),
        ...(budgetTokens !== undefined ? { budgetTokens } : {}),
        ...(budgetSeconds !== undefined ? { budgetMs: Math.round(budgetSeconds * 1000) } : {}),
      },
      signal: controller.signal,
      judge,
      ...(resume !== undefined ? { resume } : {}),
      onProgress: io.isTty ? (e) => io.stderr(`${progressLine(e)}\n`) : undefined,
    });
    const report: BuildReport = {
      ok: result.ok,
      published: result.published,
      session: { id: result.session.id, rounds: result.session.rounds, stopReason: result.stopReason },
      issues: result.issues,
      card: result.card,
      summary: result.summary,
      usage: result.usage,
      cost: {
        build: { tokensIn: result.usage.tokensIn, tokensOut: result.usage.tokensOut, costUsd: result.usage.costUsd },
        review: { judge: judge.model, tokensIn: 0, tokensOut: 0, costUsd: 0, ...result.reviewUsage },
      },
      ...(result.warnings.length ? { warnings: result.warnings } : {}),
      ...(result.error ? { error: result.error } : {}),
      ...(result.overrun ? { overrun: result.overrun } : {}),
    };
    if (format === 'json') io.stdout(`${JSON.stringify(report, null, 2)}\n`);
    else io.stdout(`${formatCardText(result.card)}${result.summary}\n${usageLine(client, judge, result)}\n`);
    for (const w of result.warnings) io.stderr(`bvl: warning: ${w}\n`);
    if (result.error) {
      io.stderr(`bvl: could not build: ${result.error}\n`);
      return EXIT.cannotRun;
    }
    return result.ok && result.published ? EXIT.clean : EXIT.errors;
  } catch (e) {
    if (e instanceof BuildSetupError || e instanceof SessionError) io.stderr(`bvl: ${e.message}\n`);
    else io.stderr(`bvl: could not build: ${(e as Error)?.message ?? String(e)}\n`);
    return EXIT.cannotRun;
  } finally {
    process.off('SIGINT', onSigint);
    await platform.close().catch(() => {});
  }
}

/** `model gpt-4.1-mini at https://…: 6 turns, 5,400 tokens in / 800 out, $0.0034` (cost only when the model is priced). */
function usageLine(client: AgentClient, judge: AgentClient, r: BuildResult): string {
  const u = r.usage;
  const cost = u.priced ? `, $${u.costUsd.toFixed(4)}` : ' (no price known for this model: set BVL_PRICES)';
  const review = r.reviewUsage ? `; intent review by ${judge.model}: ${r.reviewUsage.tokensIn} tokens in / ${r.reviewUsage.tokensOut} out` : '';
  return `model ${client.model} at ${client.endpoint}: ${u.turns} turn${u.turns === 1 ? '' : 's'}${u.retries ? ` (${u.retries} retried)` : ''}, ${u.tokensIn} tokens in / ${u.tokensOut} out${cost}${review}`;
}
