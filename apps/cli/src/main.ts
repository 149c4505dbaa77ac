import manifest from '../package.json' with { type: 'json' };
import { type CliIo, EXIT } from './cli-io.ts';
import { UsageError } from './parse-args.ts';
import { MCP_USAGE, PUBLISH_USAGE, SERVE_USAGE, TOKEN_USAGE, VERIFY_USAGE } from './usage.ts';

/** Top-level usage. */
export const USAGE = `bvl — Build Verification Loop for metadata-driven apps

  ${VERIFY_USAGE.replace('usage: ', '')}
  ${PUBLISH_USAGE.replace('usage: ', '')}
  ${SERVE_USAGE.replace('usage: ', '')}
  ${MCP_USAGE.replace('usage: ', '')}
  ${TOKEN_USAGE.replace('usage: ', '')}

Exit codes: 0 no error, 1 errors found, 2 could not run.`;

type Command = (argv: string[], io: CliIo) => Promise<number>;

async function loadCommand(name: string): Promise<Command | undefined> {
  if (name === 'verify') return (await import('./commands/verify.ts')).verifyCommand;
  if (name === 'publish') return (await import('./commands/publish.ts')).publishCommand;
  if (name === 'serve') return (await import('./commands/serve.ts')).serveCommand;
  if (name === 'mcp') return (await import('./commands/mcp.ts')).mcpCommand;
  if (name === 'token') return (await import('./commands/token.ts')).tokenCommand;
  return undefined;
}

/** Runs the CLI; returns the exit code. Anything unexpected is one clear line on stderr and exit 2. */
export async function main(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(`${USAGE}\n`);
    return name === undefined ? EXIT.cannotRun : EXIT.clean;
  }
  if (name === '--version') {
    io.stdout(`${manifest.version}\n`);
    return EXIT.clean;
  }
  try {
    const command = await loadCommand(name);
    if (!command) throw new UsageError(`unknown command ${JSON.stringify(name)}; try "bvl --help"`);
    return await command(rest, io);
  } catch (e) {
    // SourceError is matched by name: importing @bvl/metadata here would load it for `bvl --help` too.
    if (e instanceof UsageError || (e as Error)?.name === 'SourceError') io.stderr(`bvl: ${(e as Error).message}\n`);
    else io.stderr(`bvl: could not run: ${(e as Error)?.message ?? String(e)}\n`);
    return EXIT.cannotRun;
  }
}
