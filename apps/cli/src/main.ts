import { SourceError } from '@bvl/metadata';
import { type CliIo, EXIT } from './cli-io.ts';
import { VERIFY_USAGE, verifyCommand } from './commands/verify.ts';
import { UsageError } from './parse-args.ts';

/** Top-level usage. */
export const USAGE = `bvl — Build Verification Loop for metadata-driven apps

  ${VERIFY_USAGE.replace('usage: ', '')}
  bvl publish <stack.json | folder> [--drafts <…>] [--format pretty|json|sarif] [--tenant t] [--package p]

Exit codes: 0 no error, 1 errors found, 2 could not run.`;

type Command = (argv: string[], io: CliIo) => Promise<number>;

async function loadCommand(name: string): Promise<Command | undefined> {
  if (name === 'verify') return verifyCommand;
  if (name === 'publish') return (await import('./commands/publish.ts')).publishCommand;
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
    io.stdout('0.1.0\n');
    return EXIT.clean;
  }
  try {
    const command = await loadCommand(name);
    if (!command) throw new UsageError(`unknown command ${JSON.stringify(name)}; try "bvl --help"`);
    return await command(rest, io);
  } catch (e) {
    if (e instanceof UsageError || e instanceof SourceError) io.stderr(`bvl: ${e.message}\n`);
    else io.stderr(`bvl: could not run: ${(e as Error)?.message ?? String(e)}\n`);
    return EXIT.cannotRun;
  }
}
