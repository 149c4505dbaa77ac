import manifest from '../package.json' with { type: 'json' };
import { type CliIo, EXIT } from './cli-io.ts';
import { COMMANDS, commandNamed } from './command-table.ts';
import { UsageError } from './usage-error.ts';

/** Top-level usage: every command of the table with its summary. */
export const USAGE = `bvl — Build Verification Loop for metadata-driven apps (ObjectStack stacks)

usage: bvl <command> [options]

${COMMANDS.map((c) => `  ${c.name.padEnd(12)} ${c.summary}`).join('\n')}

bvl <command> --help shows a command's options. bvl --version prints the version.
Exit codes: 0 no error, 1 errors found, 2 could not run.`;

const wantsHelp = (argv: readonly string[]): boolean => {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h');
};

/**
 * Runs the CLI; returns the exit code. Anything unexpected is one clear line on stderr and exit 2.
 * Whatever a command prints passes terminalSafeIo: escape bytes from input never reach the terminal.
 */
export async function main(argv: string[], rawIo: CliIo): Promise<number> {
  let io = rawIo;
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.stderr(`${USAGE}\n`);
    return EXIT.cannotRun;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' ? rest[0] : undefined;
    const entry = topic ? commandNamed(topic) : undefined;
    io.stdout(`${entry ? entry.usage : USAGE}\n`);
    return EXIT.clean;
  }
  if (name === '--version' || name === '-v') {
    io.stdout(`${manifest.version}\n`);
    return EXIT.clean;
  }
  try {
    // Loaded here, not statically: `bvl --help` prints only bvl's own text and stays light.
    io = (await import('./terminal-safe.ts')).terminalSafeIo(rawIo);
    const entry = commandNamed(name);
    if (!entry) {
      // Loaded only on this error path: main must stay free of the packages the commands use.
      const { didYouMean } = await import('@bvl/metadata');
      const near = didYouMean(
        name,
        COMMANDS.map((c) => c.name),
        1,
      );
      throw new UsageError(`unknown command ${JSON.stringify(name)}${near.length ? `; did you mean "bvl ${near[0]}"?` : ''} (bvl --help lists the commands)`);
    }
    if (wantsHelp(rest)) {
      io.stdout(`${entry.usage}\n`);
      return EXIT.clean;
    }
    const run = await entry.load();
    return await run(rest, io);
  } catch (e) {
    // Matched by name: importing @bvl/metadata's SourceError here would load it for `bvl --help` too.
    const known = ['UsageError', 'SourceError', 'ConfigError'].includes((e as Error)?.name);
    if (known) io.stderr(`bvl: ${(e as Error).message}\n`);
    else io.stderr(`bvl: could not run: ${(e as Error)?.message ?? String(e)}\n`);
    return EXIT.cannotRun;
  }
}
