import { recordCase } from '@bvl/eval-runner';
import { type CliIo, EXIT } from '../cli-io.ts';
import { parseCommandArgs, UsageError } from '../parse-args.ts';
import { DEFAULT_CASES_DIR, resolvePath, withEvalDatabase } from './eval-shared.ts';

/**
 * `bvl eval add-case --from-session <id>`: a failed build session becomes a golden case (its goal
 * as the prompt, the state it left as the starting point, the errors it left as `issues_absent`).
 */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    argv,
    {
      'from-session': { type: 'string' },
      tenant: { type: 'string' },
      name: { type: 'string' },
      'cases-dir': { type: 'string' },
    },
    'eval add-case',
  );
  if (positionals.length > 0)
    throw new UsageError(
      `unexpected argument ${JSON.stringify(positionals[0])}; usage: bvl eval add-case --from-session <id> [--tenant t] [--name n] [--cases-dir dir]`,
    );
  const session = values['from-session'];
  if (!session) throw new UsageError('bvl eval add-case needs --from-session <id>: the build session to record');
  const dir = resolvePath(io, values['cases-dir'] ?? DEFAULT_CASES_DIR);
  return withEvalDatabase(io, async (platform) => {
    const r = await recordCase(platform, { session, tenant: values.tenant, dir, name: values.name });
    io.stdout(
      `wrote ${r.dir}: case "${r.case.name}" from session ${session} — ${r.case.assertions.length} assertions, ${r.errorsLeft} error${r.errorsLeft === 1 ? '' : 's'} it left now expected gone (issues_absent)\n` +
        'blueprint.json is the state the session left (the starting point); once a fixed version of it is the reference, move the broken state into a defect set and drop "origin"\n',
    );
    return EXIT.clean;
  });
}
