import { tenantProblem } from '@bvl/platform';
import { getSession, listRounds, readTranscript, SessionError, sessionReviews, type TranscriptTurnView } from '@bvl/verify-build';
import { type CliIo, EXIT } from '../cli-io.ts';
import { COMMAND_HELP } from '../command-help.ts';
import { parseCommandArgs, UsageError } from '../parse-args.ts';
import { openDatabase } from './eval-shared.ts';
import { DEFAULT_TENANT } from './publish.ts';

/** Characters of a turn's text printed at most in the pretty view (json has the stored text). */
const MAX_PRINTED_CHARS = 600;

const cut = (s: string, max = MAX_PRINTED_CHARS) => (s.length <= max ? s : `${s.slice(0, max)}… (${s.length - max} more characters)`);
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

/** `bvl session show <id>`: a build session, its rounds (with the intent review's verdict), cost by stage and its transcript. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const usage = COMMAND_HELP.session.usage;
  const { values, positionals } = parseCommandArgs(argv, { tenant: { type: 'string' }, format: { type: 'string' }, 'data-dir': { type: 'string' } }, 'session');
  const [verb, id, ...rest] = positionals;
  if (verb !== 'show' || id === undefined || rest.length) throw new UsageError(`bvl session needs show <id>\n${usage}`);
  const format = values.format ?? 'pretty';
  if (format !== 'pretty' && format !== 'json') throw new UsageError(`--format must be pretty or json (got ${JSON.stringify(format)})`);
  const tenant = values.tenant ?? DEFAULT_TENANT;
  if (tenantProblem(tenant)) throw new UsageError(`--tenant ${JSON.stringify(tenant)} ${tenantProblem(tenant)}`);
  const platform = await openDatabase(io, values['data-dir']);
  if (!platform) return EXIT.cannotRun;
  try {
    const ref = { tenant, id };
    const session = await getSession(platform, ref);
    const { reviews, cost } = await sessionReviews(platform, ref);
    const byRound = new Map(reviews.map((r) => [r.round, r.review]));
    const rounds = (await listRounds(platform, ref)).map((r) => ({ ...r, ...(byRound.has(r.round) ? { review: byRound.get(r.round) } : {}) }));
    const transcript = await readTranscript(platform, ref);
    if (format === 'json') {
      io.stdout(`${JSON.stringify({ session, rounds, transcript, cost }, null, 2)}\n`);
      return EXIT.clean;
    }
    const lines = [
      `session ${session.id} · tenant ${session.tenant} · package ${session.package} · ${session.status}${session.stopReason ? ` (${session.stopReason})` : ''}`,
      `goal: ${session.goal}`,
      `cost: build ${cost.build.tokensIn} in / ${cost.build.tokensOut} out, $${cost.build.costUsd.toFixed(4)}; review ${cost.review.tokensIn} in / ${cost.review.tokensOut} out, $${cost.review.costUsd.toFixed(4)}`,
      '',
      `rounds (${rounds.length}):`,
      ...rounds.map(
        (r) =>
          `  ${r.round} ${r.kind}: ${r.errors.length} error(s), ${r.warnings.length} warning(s) → ${r.stopReason ?? r.next}${r.why ? ` — ${oneLine(r.why)}` : ''}${'review' in r && r.review ? ` · review (${r.review.judge}): ${r.review.verdict}` : ''}`,
      ),
      '',
      `transcript (${transcript.length} turn(s)${transcript.some((t) => t.condensed) ? `, ${transcript.filter((t) => t.condensed).length} condensed` : ''}):`,
      ...transcript.flatMap(turnLines),
    ];
    io.stdout(`${lines.join('\n')}\n`);
    return EXIT.clean;
  } catch (e) {
    if (!(e instanceof SessionError)) throw e;
    io.stderr(`bvl: ${e.message} in tenant ${JSON.stringify(tenant)}\n`);
    return EXIT.cannotRun;
  } finally {
    await platform.close().catch(() => {});
  }
}

/** A turn in the pretty view: a header line, its text, then each tool call and its result. */
function turnLines(t: TranscriptTurnView): string[] {
  const spend = t.tokensIn || t.tokensOut ? ` · ${t.tokensIn} in / ${t.tokensOut} out` : '';
  const extra = [
    t.tokensCached ? `${t.tokensCached} cached` : '',
    t.tokensReasoning ? `${t.tokensReasoning} reasoning` : '',
    t.retries ? `${t.retries} retried` : '',
  ]
    .filter(Boolean)
    .join(', ');
  const head = `  #${t.turn} ${t.role}${t.stage === 'review' ? ' (intent review)' : ''}${spend}${extra ? ` (${extra})` : ''}${t.ms ? ` · ${t.ms} ms` : ''}${t.condensed ? ' · condensed' : ''}`;
  const out = [head];
  if (t.content) out.push(`    ${cut(oneLine(t.content))}`);
  for (const c of t.toolCalls) {
    out.push(`    → ${c.name}(${cut(oneLine(c.arguments), 200)})`);
    out.push(`      ← ${c.result === null ? '(not answered)' : cut(oneLine(c.result), 300)}`);
  }
  return out;
}
