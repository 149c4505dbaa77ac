import { type CliIo, EXIT } from '../cli-io.ts';
import { EVAL_USAGE } from '../eval-usage.ts';

/**
 * `bvl eval`: runs the golden suite (eval-run.ts), or its subcommands `report` (the HTML report)
 * and `add-case` (a golden case from a build session), each loaded only when asked for.
 */
export async function run(argv: string[], io: CliIo): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.stdout(`${EVAL_USAGE}\n`);
    return EXIT.clean;
  }
  const [sub, ...rest] = argv;
  if (sub === 'report') return (await import('./eval-report.ts')).run(rest, io);
  if (sub === 'add-case') return (await import('./eval-add-case.ts')).run(rest, io);
  return (await import('./eval-run.ts')).run(argv, io);
}
