import { issueToken, revokeTokenById, tokensOf } from '@bvl/api/main';
import { tenantProblem } from '@bvl/platform';
import { type CliIo, EXIT } from '../cli-io.ts';
import { COMMAND_HELP } from '../command-help.ts';
import { parseCommandArgs, UsageError } from '../parse-args.ts';
// A new embedded data folder starts from the template the build ships (no initdb).
import '../pglite-template.ts';

/**
 * `bvl token create|list|revoke --tenant t`: bearer tokens of the HTTP API. `create` prints the
 * token once (the database keeps only its hash); `list` shows ids and labels; `revoke` ends one.
 */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const usage = COMMAND_HELP.token.usage;
  const { values, positionals } = parseCommandArgs(argv, { tenant: { type: 'string' }, label: { type: 'string' } }, 'token');
  const [verb, ...rest] = positionals;
  if (verb !== 'create' && verb !== 'list' && verb !== 'revoke') throw new UsageError(`bvl token needs create, list or revoke\n${usage}`);
  const tenant = values.tenant;
  if (tenant === undefined) throw new UsageError(`bvl token ${verb} needs --tenant\n${usage}`);
  const bad = tenantProblem(tenant);
  if (bad) throw new UsageError(`--tenant ${JSON.stringify(tenant)} ${bad}`);
  if (verb === 'revoke' ? rest.length !== 1 : rest.length !== 0) throw new UsageError(usage);
  try {
    if (verb === 'create') {
      const { token, info } = await issueToken(io.env, io.cwd, tenant, values.label);
      io.stdout(`token: ${token}\n`);
      io.stderr(`token ${info.id} for tenant "${tenant}": shown once, the database keeps only its hash\n`);
    } else if (verb === 'list') {
      for (const t of await tokensOf(io.env, io.cwd, tenant))
        io.stdout(`${t.id}  ${t.createdAt}  ${t.revokedAt ? `revoked ${t.revokedAt}` : 'active'}  ${t.label}\n`);
    } else if (!(await revokeTokenById(io.env, io.cwd, tenant, rest[0]!))) {
      io.stderr(`bvl: tenant "${tenant}" has no active token ${JSON.stringify(rest[0])}\n`);
      return EXIT.errors;
    }
    return EXIT.clean;
  } catch (e) {
    io.stderr(`bvl: cannot reach the database: ${(e as Error)?.message ?? String(e)}\n`);
    return EXIT.cannotRun;
  }
}
