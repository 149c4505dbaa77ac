import { runMcpStdio } from '@bvl/api/main';
import manifest from '../../package.json' with { type: 'json' };
import { type CliIo, EXIT } from '../cli-io.ts';
import { COMMAND_HELP } from '../command-help.ts';
import { parseCommandArgs, UsageError } from '../parse-args.ts';
// A new embedded data folder starts from the template the build ships (no initdb).
import '../pglite-template.ts';

/**
 * `bvl mcp`: an MCP server on stdio for a local agent (verify, fix, publish, card over a folder or
 * stack file, paths relative to the working folder). Runs until the client closes stdin.
 */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const usage = COMMAND_HELP.mcp.usage;
  const { positionals } = parseCommandArgs(argv, {}, 'mcp');
  if (positionals.length > 0) throw new UsageError(`bvl mcp takes no arguments\n${usage}`);
  await runMcpStdio({ env: io.env, cwd: io.cwd, version: manifest.version });
  return EXIT.clean;
}
