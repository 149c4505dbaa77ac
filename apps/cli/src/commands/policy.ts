import { policyOf, setPolicyOf } from '@bvl/api/main';
import { tenantProblem } from '@bvl/platform';
import { type CliIo, EXIT } from '../cli-io.ts';
import { COMMAND_HELP } from '../command-help.ts';
import { parseCommandArgs, UsageError } from '../parse-args.ts';
// A new embedded data folder starts from the template the build ships (no initdb).
import '../pglite-template.ts';

/**
 * `bvl policy show|set --tenant t`: a tenant's server policy, on the database the environment
 * names. `set` is the operator's (it may loosen); it prints what is in force afterwards.
 */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const usage = COMMAND_HELP.policy.usage;
  const { values, positionals } = parseCommandArgs(argv, { tenant: { type: 'string' } }, 'policy');
  const [verb, ...rest] = positionals;
  if (verb !== 'show' && verb !== 'set') throw new UsageError(`bvl policy needs show or set\n${usage}`);
  const tenant = values.tenant;
  if (tenant === undefined) throw new UsageError(`bvl policy ${verb} needs --tenant\n${usage}`);
  const bad = tenantProblem(tenant);
  if (bad) throw new UsageError(`--tenant ${JSON.stringify(tenant)} ${bad}`);
  if (verb === 'show' ? rest.length !== 0 : rest.length !== 1) throw new UsageError(usage);
  let policy: unknown;
  if (verb === 'set') {
    try {
      policy = JSON.parse(rest[0]!);
    } catch (e) {
      throw new UsageError(`the policy is not JSON: ${(e as Error).message}`);
    }
  }
  try {
    const view = verb === 'show' ? await policyOf(io.env, io.cwd, tenant) : await setPolicyOf(io.env, io.cwd, tenant, policy);
    io.stdout(`${JSON.stringify(view, null, 2)}\n`);
    return EXIT.clean;
  } catch (e) {
    const err = e as Error;
    if (err?.name === 'SessionError') {
      io.stderr(`bvl: ${err.message}\n`);
      return EXIT.errors;
    }
    io.stderr(`bvl: cannot reach the database: ${err?.message ?? String(e)}\n`);
    return EXIT.cannotRun;
  }
}
