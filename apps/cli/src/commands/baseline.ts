import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { BASELINE_FILE, makeBaseline } from '../baseline.ts';
import { checkInputs, configFor, noticeLine, readInputs } from '../check-input.ts';
import { type CliIo, EXIT } from '../cli-io.ts';
import { COMMAND_HELP } from '../command-help.ts';
import { oneStackArg, parseCommandArgs } from '../parse-args.ts';
import { parseLayers } from './verify.ts';

/**
 * `bvl baseline`: records the fingerprint of every current issue (after the config), so
 * `bvl verify --baseline <file>` shows only issues that are new. Exit 0 once written.
 */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    argv,
    { drafts: { type: 'string' }, layers: { type: 'string' }, config: { type: 'string' }, output: { type: 'string', short: 'o' } },
    'baseline',
  );
  const stack = oneStackArg(positionals, 'record', COMMAND_HELP.baseline.usage);
  const config = configFor(io, stack, values.config);
  const inputs = await readInputs(io, stack, values.drafts);
  const { issues, notices } = checkInputs(io, inputs, { layers: parseLayers(values.layers) }, config);
  for (const n of notices) io.stderr(`bvl: warning: ${noticeLine(n)}\n`);
  const file = values.output ?? BASELINE_FILE;
  const baseline = makeBaseline(issues);
  writeFileSync(resolve(io.cwd, file), `${JSON.stringify(baseline, null, 2)}\n`);
  io.stdout(
    `wrote ${baseline.issues.length} known issue${baseline.issues.length === 1 ? '' : 's'} to ${file}; bvl verify ${stack} --baseline ${file} now reports only new ones\n`,
  );
  return EXIT.clean;
}
