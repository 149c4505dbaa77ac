import manifest from '../package.json' with { type: 'json' };
import { type CliIo, EXIT } from './cli-io.ts';
import { EVAL_SUMMARY, EVAL_USAGE, EVAL_WORKER_SUMMARY, EVAL_WORKER_USAGE } from './eval-usage.ts';
import { UsageError } from './parse-args.ts';
import { PUBLISH_USAGE, VERIFY_USAGE } from './usage.ts';

/** Top-level usage. */
export const USAGE = `bvl — Build Verification Loop for metadata-driven apps

  ${VERIFY_USAGE.replace('usage: ', '')}
  ${PUBLISH_USAGE.replace('usage: ', '')}
  eval         ${EVAL_SUMMARY} (bvl eval --help)
  eval-worker  ${EVAL_WORKER_SUMMARY} (bvl eval-worker --help)

Exit codes: 0 no error, 1 errors found, 2 could not run.`;

type Command = (argv: string[], io: CliIo) => Promise<number>;

async function loadCommand(name: string): Promise<Command | undefined> {
  if (name === 'verify') return (await import('./commands/verify.ts')).verifyCommand;
  if (name === 'publish') return (await import('./commands/publish.ts')).publishCommand;
  if (name === 'eval') return (await import('./commands/eval.ts')).run;
  if (name === 'eval-worker') return (await import('./commands/eval-worker.ts')).run;
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
  // The eval commands' help, printed before anything is loaded (the command bodies hold no usage text).
  const evalHelp = name === 'eval' ? EVAL_USAGE : name === 'eval-worker' ? EVAL_WORKER_USAGE : undefined;
  if (evalHelp && (rest.includes('--help') || rest.includes('-h'))) {
    io.stdout(`${evalHelp}\n`);
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
