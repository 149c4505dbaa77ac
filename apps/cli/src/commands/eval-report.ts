import { writeFile } from 'node:fs/promises';
import { loadEvalReport, renderEvalReport } from '@bvl/eval-runner';
import { type CliIo, EXIT } from '../cli-io.ts';
import { parseCommandArgs, UsageError } from '../parse-args.ts';
import { intFlag, resolvePath, withEvalDatabase } from './eval-shared.ts';

/** `bvl eval report`: the self-contained HTML report of a batch (the latest by default), to a file. */
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
    await writeFile(file, renderEvalReport(input));
    const s = input.summary;
    io.stdout(`wrote ${file}: batch ${input.batch.id}, ${s.attempts} attempts (pass ${s.pass}, fail ${s.fail}, error ${s.error}, limit ${s.limit})\n`);
    return EXIT.clean;
  });
}
