import { startServer } from '@bvl/api/main';
import manifest from '../../package.json' with { type: 'json' };
import { type CliIo, EXIT } from '../cli-io.ts';
import { COMMAND_HELP } from '../command-help.ts';
import { parseCommandArgs, UsageError } from '../parse-args.ts';
// A new embedded data folder starts from the template the build ships (no initdb).
import '../pglite-template.ts';

/** Port `bvl serve` listens on without --port. */
export const DEFAULT_PORT = 8787;

function parsePort(value: string | undefined): number {
  if (value === undefined) return DEFAULT_PORT;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new UsageError(`--port takes 0–65535 (0 = any free port), got ${JSON.stringify(value)}`);
  return n;
}

/**
 * `bvl serve`: the HTTP API (and MCP at /mcp) on the database the environment names — embedded
 * PGlite in .bvl/data, or DATABASE_URL — with the demo tenant set up. Prints the URL, a token and a
 * curl line; runs until SIGINT/SIGTERM, then closes cleanly.
 */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const usage = COMMAND_HELP.serve.usage;
  const { values, positionals } = parseCommandArgs(argv, { port: { type: 'string' }, host: { type: 'string' }, 'no-demo': { type: 'boolean' } }, 'serve');
  if (positionals.length > 0) throw new UsageError(`bvl serve takes no arguments\n${usage}`);
  const port = parsePort(values.port);
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer({ port, host: values.host ?? '127.0.0.1', demo: !values['no-demo'], env: io.env, cwd: io.cwd, version: manifest.version });
  } catch (e) {
    io.stderr(`bvl: cannot serve: ${(e as Error)?.message ?? String(e)}\n`);
    return EXIT.cannotRun;
  }
  const lines = [`bvl ${manifest.version} serving ${server.url} (${server.database})`];
  if (server.demo) {
    const pkg = `${server.url}/v1/tenants/${server.demo.tenant}/packages/${server.demo.package}`;
    lines.push(
      `demo: tenant "${server.demo.tenant}", package "${server.demo.package}" — the example app published, the agent's broken drafts staged`,
      `token: ${server.demo.token}`,
      `session: curl -s -X POST -H "Authorization: Bearer ${server.demo.token}" -H "Content-Type: application/json" -d '{"goal":"Track expenses"}' ${pkg}/sessions`,
      `verify: curl -s -X POST -H "Authorization: Bearer ${server.demo.token}" -H "Content-Type: application/json" -d '{"session":"<id>"}' ${pkg}/verify`,
      `card: curl -s -H "Authorization: Bearer ${server.demo.token}" -H "Accept: text/html" ${pkg}/health > card.html`,
    );
  } else lines.push('no demo: issue a token with "bvl token create --tenant <t>"');
  lines.push(`openapi: ${server.url}/openapi.json   mcp: ${server.url}/mcp   health: ${server.url}/healthz`);
  io.stdout(`${lines.join('\n')}\n`);
  await new Promise<void>((done) => {
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
  await server.close();
  return EXIT.clean;
}
