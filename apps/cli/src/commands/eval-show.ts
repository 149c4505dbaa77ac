import { compareWithBaseline, formatAttempt, formatEvalSummary, getBatch, loadAttemptViews, summarizeStoredBatch } from '@bvl/eval-runner';
import { type CliIo, EXIT } from '../cli-io.ts';
import { parseCommandArgs, parseFormat, UsageError } from '../parse-args.ts';
import { intFlag, TRANSCRIPTS, withEvalDatabase } from './eval-shared.ts';

const USAGE = 'usage: bvl eval show <batch> [--case c [--variant v] [--prompt p] [--subject s] [--epoch n]] [--format pretty|json]';

/**
 * `bvl eval show <batch>`: a stored batch in the terminal — its summary, subjects side by side and
 * comparison — or, with `--case`, each matching attempt in full: the prompt, the card, tokens and
 * cost, each round's issues marked new / reappeared / persisting, the transcript (when the build
 * session recorded one), the assertions that did not pass, the intent review, the earlier tries.
 */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    argv,
    {
      case: { type: 'string' },
      variant: { type: 'string' },
      prompt: { type: 'string' },
      subject: { type: 'string' },
      epoch: { type: 'string' },
      format: { type: 'string' },
    },
    'eval show',
  );
  if (positionals.length !== 1)
    throw new UsageError(
      positionals.length === 0 ? `bvl eval show needs a batch id; ${USAGE}` : `unexpected argument ${JSON.stringify(positionals[1])}; ${USAGE}`,
    );
  const batchId = intFlag('batch', positionals[0], 1, Number.MAX_SAFE_INTEGER)!;
  const format = parseFormat(values.format, ['pretty', 'json']);
  const attemptFlags = (['variant', 'prompt', 'subject', 'epoch'] as const).filter((k) => values[k] !== undefined);
  if (values.case === undefined && attemptFlags.length > 0) throw new UsageError(`--${attemptFlags[0]} narrows the attempts of a --case`);
  const epoch = intFlag('epoch', values.epoch, 1, 100);
  return withEvalDatabase(io, async (platform) => {
    if (values.case === undefined) {
      const batch = await getBatch(platform, batchId);
      if (!batch) {
        io.stderr(`bvl: there is no eval batch ${batchId}\n`);
        return EXIT.cannotRun;
      }
      const { summary, attempts } = await summarizeStoredBatch(platform, batch);
      const comparison = await compareWithBaseline(platform, batch, summary);
      if (format === 'json') io.stdout(`${JSON.stringify({ batch, summary, comparison, attempts: attempts.length }, null, 2)}\n`);
      else io.stdout(formatEvalSummary({ batch, summary, comparison, complete: batch.status === 'finished' }));
      return EXIT.clean;
    }
    const filter = { case: values.case, variant: values.variant, prompt: values.prompt, subject: values.subject, epoch };
    const { views } = await loadAttemptViews(platform, batchId, filter, TRANSCRIPTS);
    if (format === 'json') io.stdout(`${JSON.stringify(views, null, 2)}\n`);
    else io.stdout(views.map(formatAttempt).join('\n'));
    return EXIT.clean;
  });
}
