import type { CliIo } from '../cli-io.ts';

/**
 * `bvl eval`: runs the golden suite (eval-run.ts), or its subcommands `report` (the HTML report
 * and a page per attempt), `show` (a batch or its attempts in the terminal) and `add-case` (a
 * golden case from a build session), each loaded only when asked for.
 */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'report') return (await import('./eval-report.ts')).run(rest, io);
  if (sub === 'add-case') return (await import('./eval-add-case.ts')).run(rest, io);
  if (sub === 'show') return (await import('./eval-show.ts')).run(rest, io);
  return (await import('./eval-run.ts')).run(argv, io);
}
