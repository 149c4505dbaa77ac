import { mkdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { attemptPageName, loadAttemptViews, loadEvalReport, renderAttemptPage, renderEvalReport } from '@bvl/eval-runner';
import { type CliIo, EXIT } from '../cli-io.ts';
import { parseCommandArgs, UsageError } from '../parse-args.ts';
import { intFlag, resolvePath, TRANSCRIPTS, withEvalDatabase } from './eval-shared.ts';

/** The folder beside a report that holds its attempt pages: `report.html` → `report-attempts/`. */
export const attemptsDirOf = (report: string): string => join(dirname(report), `${basename(report).replace(/\.html?$/i, '')}-attempts`);

/**
 * `bvl eval report`: the self-contained HTML report of a batch (the latest by default), to a file,
 * and beside it a folder of one self-contained page per attempt (`<report>-attempts/`), linked
 * from the report: the prompt, the rounds with their issues, the transcript, the card, tokens and cost.
 */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    argv,
    {
      batch: { type: 'string' },
      baseline: { type: 'string' },
      output: { type: 'string', short: 'o' },
    },
    'eval report',
  );
  if (positionals.length > 0)
    throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}; usage: bvl eval report [--batch b] [--baseline b] -o report.html`);
  const output = values.output;
  if (output === undefined) throw new UsageError('bvl eval report needs -o <file.html>: the report is one self-contained HTML page');
  const batch = intFlag('batch', values.batch, 1, Number.MAX_SAFE_INTEGER);
  const baseline = intFlag('baseline', values.baseline, 1, Number.MAX_SAFE_INTEGER);
  return withEvalDatabase(io, async (platform) => {
    const input = await loadEvalReport(platform, { ...(batch !== undefined ? { batch } : {}), ...(baseline !== undefined ? { baseline } : {}) });
    const file = resolvePath(io, output);
    const pages = attemptsDirOf(file);
    const folder = basename(pages);
    await writeFile(file, renderEvalReport(input, { attemptHref: (a) => `${folder}/${attemptPageName(a)}` }));
    const { views } = await loadAttemptViews(platform, input.batch.id, {}, TRANSCRIPTS);
    await mkdir(pages, { recursive: true });
    for (const view of views) await writeFile(join(pages, attemptPageName(view.attempt)), renderAttemptPage(view, { reportHref: `../${basename(file)}` }));
    const s = input.summary;
    io.stdout(
      `wrote ${file}: batch ${input.batch.id}, ${s.attempts} attempts (pass ${s.pass}, fail ${s.fail}, error ${s.error}, limit ${s.limit}), and a page per attempt in ${pages}\n`,
    );
    return EXIT.clean;
  });
}
