// The composition root: the only place that opens the database, reads the environment, makes the
// logger and listens. `bvl serve`, `bvl mcp` and `bvl token` call these.
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { judgeFromEnv } from '@bvl/build-agent';
import { openPlatform, type Platform, platformOptionsFromEnv } from '@bvl/platform';
import {
  DEFAULT_POLICY,
  type EffectivePolicy,
  effectivePolicy,
  expireSessions,
  getTenantPolicy,
  type PolicyView,
  putTenantPolicy,
  TenantPolicySchema,
} from '@bvl/verify-build';
import { serve } from '@hono/node-server';
import pino from 'pino';
import { createApp, type Limits } from './create-app.ts';
import { createLocalMcp } from './local/create-local-mcp.ts';
import { LineStdioTransport } from './local/line-stdio-transport.ts';
import { DEMO, findExample, stageDemo } from './run-demo.ts';
import { createToken, listTokens, revokeToken, type TokenInfo } from './run-tokens.ts';
import { type TenantLimits, tenantLimitsFromEnv, verifyWorkersFromEnv } from './tenant-limiter.ts';

/** How long the server keeps an idle connection open (longer than clients and load balancers do). */
export const KEEP_ALIVE_MS = 65_000;

/** How often `bvl serve` closes sessions idle past their limit (a touch closes one at once too). */
export const EXPIRY_SWEEP_MS = 60_000;

/**
 * The server's default policy: DEFAULT_POLICY with sessions required (verify and publish over HTTP
 * and MCP need one), then `BVL_POLICY` (a policy's JSON, e.g. `{"maximums":{"budgetUsd":2}}` or
 * `{"requireSession":false}`) over it. A tenant's own policy overrides it field by field.
 */
export function serverPolicyFromEnv(env: Readonly<Record<string, string | undefined>>): EffectivePolicy {
  const base: EffectivePolicy = { ...DEFAULT_POLICY, requireSession: true };
  const text = env.BVL_POLICY?.trim();
  if (!text) return base;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new Error(`BVL_POLICY is not JSON: ${(e as Error).message}`);
  }
  const parsed = TenantPolicySchema.safeParse(raw);
  if (!parsed.success)
    throw new Error(`BVL_POLICY is not a policy: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(policy)'}: ${i.message}`).join('; ')}`);
  return effectivePolicy(parsed.data, base);
}

/** What `bvl serve` is given. */
export interface ServeOptions {
  readonly port: number;
  readonly host: string;
  /** Set up the demo tenant with the example app (when the example is found). */
  readonly demo: boolean;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly version: string;
  readonly limits?: Partial<Limits> | undefined;
  /** Each tenant's share (default: BVL_TENANT_CONCURRENCY and BVL_TENANT_QUEUE from `env`, else 2 and 16). */
  readonly tenantLimits?: Partial<TenantLimits> | undefined;
  /** Where the JSON log lines go (default: stderr, so stdout stays for what `bvl serve` prints). */
  readonly logTo?: NodeJS.WritableStream | undefined;
}

/** A running server. */
export interface RunningServer {
  readonly url: string;
  readonly database: string;
  /** The demo: its tenant, package and a fresh token for it (printed once, stored hashed). */
  readonly demo?: { readonly tenant: string; readonly package: string; readonly token: string; readonly example: string } | undefined;
  close(): Promise<void>;
}

/** The JSON logger: one line per request; an `authorization` or `token` field is redacted wherever it appears. */
export function makeLogger(to: NodeJS.WritableStream = process.stderr) {
  return pino(
    {
      base: { service: 'bvl-api' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: ['authorization', '*.authorization', 'headers', '*.headers', 'token', '*.token'], censor: '[redacted]' },
    },
    to,
  );
}

/**
 * Opens the database (DATABASE_URL, else PGlite under `<cwd>/.bvl/data`), sets up the demo, and
 * listens on host:port (0 = any free port). Several servers on one PostgreSQL share the load: tokens,
 * sessions and locks live in the database.
 */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const tenantLimits = { ...tenantLimitsFromEnv(options.env), ...options.tenantLimits };
  const verifyWorkers = verifyWorkersFromEnv(options.env);
  const policy = serverPolicyFromEnv(options.env);
  const platform = await openPlatform(platformOptionsFromEnv(options.env, options.cwd));
  let sweep: ReturnType<typeof setInterval> | undefined;
  try {
    let demo: RunningServer['demo'];
    if (options.demo) {
      const example = findExample([options.cwd, import.meta.dirname]);
      if (example) {
        await stageDemo(platform, example);
        const { token } = await createToken(platform, { tenant: DEMO.tenant, label: 'bvl serve demo' });
        demo = { ...DEMO, token, example };
      }
    }
    // review_intent's judge: BVL_JUDGE_MODEL (else BVL_MODEL) at the configured endpoint; none, and the tool says so.
    const judged = judgeFromEnv(options.env);
    const judge = 'client' in judged ? judged.client : undefined;
    const logger = makeLogger(options.logTo);
    const app = createApp({ platform, logger, version: options.version, limits: options.limits, tenantLimits, verifyWorkers, policy, judge });
    // A killed build leaves its session open: the sweep closes it as expired once idle past its limit.
    sweep = setInterval(() => {
      expireSessions(platform).then(
        (n) => n > 0 && logger.info({ expired: n }, 'expired idle sessions'),
        (e: unknown) => logger.error({ error: String(e) }, 'the session expiry sweep failed'),
      );
    }, EXPIRY_SWEEP_MS);
    sweep.unref();
    const server = await new Promise<ReturnType<typeof serve>>((resolveServer, reject) => {
      const s = serve({ fetch: app.fetch, port: options.port, hostname: options.host }, () => resolveServer(s));
      s.once('error', reject);
    });
    // Idle keep-alive sockets are closed by the client first (undici: 4 s), never by the server
    // mid-reuse: a server that closes at 5 s (Node's default) races a client reusing the socket.
    const http = server as { keepAliveTimeout?: number; headersTimeout?: number };
    http.keepAliveTimeout = KEEP_ALIVE_MS;
    http.headersTimeout = KEEP_ALIVE_MS + 1_000;
    const address = server.address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return {
      url: `http://${host}:${address.port}`,
      database: platform.location,
      demo,
      close: async () => {
        clearInterval(sweep);
        await new Promise<void>((done) => {
          server.close(() => done());
          (server as { closeAllConnections?: () => void }).closeAllConnections?.();
        });
        await platform.close();
      },
    };
  } catch (e) {
    clearInterval(sweep);
    await platform.close().catch(() => {});
    throw e;
  }
}

/** Runs `fn` on the database the environment names, and closes it. */
async function withPlatform<T>(env: ServeOptions['env'], cwd: string, fn: (p: Platform) => Promise<T>): Promise<T> {
  const platform = await openPlatform(platformOptionsFromEnv(env, cwd));
  try {
    return await fn(platform);
  } finally {
    await platform.close();
  }
}

/** `bvl token create`: a new token for the tenant; the caller prints it once. */
export const issueToken = (env: ServeOptions['env'], cwd: string, tenant: string, label?: string) =>
  withPlatform(env, cwd, (p) => createToken(p, { tenant, label }));

/** `bvl token list`. */
export const tokensOf = (env: ServeOptions['env'], cwd: string, tenant: string): Promise<TokenInfo[]> => withPlatform(env, cwd, (p) => listTokens(p, tenant));

/** `bvl policy show`: the tenant's policy and what is in force over the server's default (BVL_POLICY). */
export const policyOf = (env: ServeOptions['env'], cwd: string, tenant: string): Promise<PolicyView> =>
  withPlatform(env, cwd, (p) => getTenantPolicy(p, tenant, serverPolicyFromEnv(env)));

/** `bvl policy set`: the operator replaces a tenant's policy (loosening included). */
export const setPolicyOf = (env: ServeOptions['env'], cwd: string, tenant: string, policy: unknown): Promise<PolicyView> =>
  withPlatform(env, cwd, (p) => putTenantPolicy(p, tenant, policy, { server: serverPolicyFromEnv(env) }));

/** `bvl token revoke`. */
export const revokeTokenById = (env: ServeOptions['env'], cwd: string, tenant: string, id: string): Promise<boolean> =>
  withPlatform(env, cwd, (p) => revokeToken(p, { tenant, id }));

/**
 * `bvl mcp`: the local tools (verify, fix, publish, card over a folder or stack file inside `cwd`)
 * on stdio until the client closes it. stdout carries the protocol only; refused input lines are
 * logged on stderr; publish opens the local database per call.
 */
export async function runMcpStdio(options: {
  readonly env: ServeOptions['env'];
  readonly cwd: string;
  readonly version: string;
  readonly stdin?: NodeJS.ReadableStream | undefined;
  readonly stdout?: NodeJS.WritableStream | undefined;
  readonly stderr?: NodeJS.WritableStream | undefined;
}): Promise<void> {
  const where = () => platformOptionsFromEnv(options.env, options.cwd);
  const server = createLocalMcp({
    ...options,
    openPlatform: () => openPlatform(where()),
    databaseMayHaveState: () => {
      const w = where();
      return w.dataDir === undefined || existsSync(w.dataDir);
    },
    judge: () => judgeFromEnv(options.env),
  });
  const stderr = options.stderr ?? process.stderr;
  const transport = new LineStdioTransport(options.stdin ?? process.stdin, options.stdout ?? process.stdout, { log: (line) => stderr.write(`${line}\n`) });
  const closed = new Promise<void>((done) => {
    transport.onclose = () => done();
  });
  await server.connect(transport);
  await closed;
  await server.close().catch(() => {});
}
