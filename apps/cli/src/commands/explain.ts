import { CATALOGUE, isCatalogueCode, ruleHelpText } from '@bvl/build-issue';
import { didYouMean } from '@bvl/metadata';
import { type CliIo, EXIT } from '../cli-io.ts';
import { COMMAND_HELP } from '../command-help.ts';
import { oneStackArg, parseCommandArgs, UsageError } from '../parse-args.ts';

/** `bvl explain <code>`: what it means, why it breaks the app, an example and how to fix — the SARIF help's text. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const { positionals } = parseCommandArgs(argv, {}, 'explain');
  const code = oneStackArg(positionals, 'explain', COMMAND_HELP.explain.usage).trim();
  if (!isCatalogueCode(code)) {
    const near = didYouMean(code, Object.keys(CATALOGUE), 1);
    throw new UsageError(`${JSON.stringify(code)} is not a bvl code${near.length ? `; did you mean ${near[0]}?` : ''} (bvl rules lists them)`);
  }
  io.stdout(`${ruleHelpText(code)}\n`);
  return EXIT.clean;
}
