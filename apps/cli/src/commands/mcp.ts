import { runMcpStdio } from '@bvl/api/main';
import manifest from '../../package.json' with { type: 'json' };
import { type CliIo, EXIT } from '../cli-io.ts';
import { parseCommandArgs, UsageError } from '../parse-args.ts';
import { MCP_USAGE } from '../usage.ts';

/**
 * `bvl mcp`: an MCP server on stdio for a local agent (verify, fix, publish, card over a folder or
 * stack file, paths relative to the working folder). Runs until the client closes stdin.
 */
export async function mcpCommand(argv: string[], io: CliIo): Promise<number> {
  const { positionals } = parseCommandArgs(argv, {});
  if (positionals.length > 0) throw new UsageError(`bvl mcp takes no arguments\n${MCP_USAGE}`);
  await runMcpStdio({ env: io.env, cwd: io.cwd, version: manifest.version });
  return EXIT.clean;
}
