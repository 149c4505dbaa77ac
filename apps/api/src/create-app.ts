import type { AgentClient } from '@bvl/build-agent';
import type { PlatformContext } from '@bvl/platform';
import { DEFAULT_POLICY, type EffectivePolicy } from '@bvl/verify-build';
import { OpenAPIHono, type z } from '@hono/zod-openapi';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import { sql } from 'kysely';
import type { AppEnv, Logger } from './app-env.ts';
import { bearerAuth, notFound } from './auth.ts';
import { createRemoteMcp } from './mcp/create-remote-mcp.ts';
import { gateToolCalls } from './mcp/gate-tool-calls.ts';
import { readMcpBody, refuseDuplicateKeys } from './refuse-duplicate-keys.ts';
import { requestLog } from './request-log.ts';
import { buildRoutes } from './routes/build-routes.ts';
import { draftRoutes } from './routes/draft-routes.ts';
import { policyRoutes } from './routes/policy-routes.ts';
import { BEARER, json } from './routes/route-kit.ts';
import { sessionRoutes } from './routes/session-routes.ts';
import { HealthzSchema } from './schemas.ts';
import { ClientGoneError, DEFAULT_TENANT_LIMITS, TenantLimiter, type TenantLimits } from './tenant-limiter.ts';
import { ApiError, describeCause, type ErrorBody, type Problem, toErrorResponse } from './to-error-response.ts';
import { configureVerifyWorkers, DEFAULT_VERIFY_WORKERS } from './verify-offload.ts';
import { withDeadline } from './with-deadline.ts';

/** The bounds every request runs under. */
export interface Limits {
  /** Largest request body (bytes); more is a 413. */
  readonly bodyBytes: number;
  /** Longest a client may take to send a request's body; slower is a 408. */
  readonly bodyMs: number;
  /** Longest a request may take before it answers 503 `timeout`. */
  readonly requestMs: number;
  /**
   * The same for publish, which runs DDL, seeds and probes: past it a publish not yet committing is
   * cancelled (503 `timeout`, nothing published), one committing answers 202 `accepted` and goes on.
   */
  readonly publishMs: number;
  /** The same for /healthz's database check. */
  readonly healthzMs: number;
}

/** Default limits: 4 MiB bodies received within 30 s, 30 s requests, 120 s publishes, a 2 s health check. */
export const DEFAULT_LIMITS: Limits = { bodyBytes: 4 * 1024 * 1024, bodyMs: 30_000, requestMs: 30_000, publishMs: 120_000, healthzMs: 2_000 };

/** What a publish's own bound leaves the request's: the publish answers first (see publishWithin). */
const PUBLISH_GRACE_MS = 5_000;

/** What the app is built from; main.ts is the one place that makes these. */
export interface AppDeps {
  readonly platform: PlatformContext;
  readonly logger: Logger;
  readonly version: string;
  readonly limits?: Partial<Limits> | undefined;
  /** Each tenant's share: requests running and queued at once (default 2 and 16). */
  readonly tenantLimits?: Partial<TenantLimits> | undefined;
  /** Worker threads that verify large overlays (default 2; 0: every verify on the server's thread). */
  readonly verifyWorkers?: number | undefined;
  /** The limiter to share (tests hold turns on it); by default one of the app's own from `tenantLimits`. */
  readonly tenantLimiter?: TenantLimiter | undefined;
  /** The limiter of large bodies (one at a time per tenant, see HEAVY_BODY_BYTES); tests hold turns on it. */
  readonly heavyLimiter?: TenantLimiter | undefined;
  /** The server's default policy for tenants without their own (default: DEFAULT_POLICY, sessions optional; `bvl serve` requires them). */
  readonly policy?: EffectivePolicy | undefined;
  /** The model review_intent judges with (main.ts: BVL_JUDGE_MODEL, else BVL_MODEL); without it the tool says so. */
  readonly judge?: AgentClient | undefined;
}

/** A body this large (1 MiB) is processed in the tenant's one turn for large bodies. */
export const HEAVY_BODY_BYTES = 1 << 20;

/** Zod problems as the API lists them: a dotted path into the input, and what is wrong there. */
export function problemsOf(error: z.ZodError, target: string): Problem[] {
  return error.issues.map((i) => ({ path: [target, ...i.path.map(String)].join('.'), message: i.message }));
}

/**
 * The HTTP API: drafts, verify_build, the gated publish, the health card and build sessions under
 * `/v1/tenants/{tenant}/packages/{package}`, the same tools over MCP at `/mcp`, `/healthz`, and the
 * OpenAPI document generated from the routes' zod schemas at `/openapi.json`. Every route calls one
 * function of packages/verify-build or packages/platform; nothing is kept in the process.
 */
export function createApp(deps: AppDeps): OpenAPIHono<AppEnv> {
  const limits = { ...DEFAULT_LIMITS, ...deps.limits };
  const { platform, logger } = deps;
  const tenantLimits = { ...DEFAULT_TENANT_LIMITS, ...deps.tenantLimits };
  configureVerifyWorkers(deps.verifyWorkers ?? DEFAULT_VERIFY_WORKERS);
  // A queued request gives up well before its deadline, so it is answered 429 (it never ran), not 503.
  const limiter =
    deps.tenantLimiter ?? new TenantLimiter({ ...tenantLimits, queueWaitMs: Math.min(tenantLimits.queueWaitMs, Math.floor(limits.requestMs / 2)) });
  // A tenant's large bodies take turns one at a time (queued as the tenant's requests are).
  const heavyLimiter = deps.heavyLimiter ?? new TenantLimiter({ ...limiter.limits, concurrency: 1 });
  const startedAt = Date.now();
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) {
        const problems = problemsOf(result.error, result.target === 'json' ? 'body' : result.target);
        throw new ApiError(
          'invalid_request',
          `invalid ${result.target === 'json' ? 'body' : result.target}: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
          problems,
        );
      }
    },
  });

  const policy = deps.policy ?? DEFAULT_POLICY;
  app.use('*', async (c, next) => {
    c.set('policy', policy);
    await next();
  });
  app.use('*', requestLog(logger));
  app.use(
    '*',
    bodyLimit({
      maxSize: limits.bodyBytes,
      onError: () => {
        throw new ApiError('payload_too_large', `the body is over the ${limits.bodyBytes}-byte limit`);
      },
    }),
  );
  // An empty body declared as JSON (curl -X POST -H 'Content-Type: application/json') means "no options".
  app.use('*', async (c, next) => {
    if (c.req.header('content-length') === '0' && c.req.header('content-type')?.includes('json')) {
      const headers = new Headers(c.req.raw.headers);
      headers.delete('content-type');
      c.req.raw = new Request(c.req.raw, { headers });
    }
    await next();
  });
  // The body, whole, within its own bound: a client that uploads slowly gets a 408, and the
  // request's bound (for the database's work) starts once it is here.
  app.use('*', async (c, next) => {
    const hasBody = (c.req.header('content-length') ?? '0') !== '0' || c.req.header('transfer-encoding') !== undefined;
    if (hasBody && c.req.raw.body) {
      const body = await receiveBody(c.req.raw, limits.bodyMs);
      c.req.raw = new Request(c.req.raw, { body });
    }
    await next();
  });
  // A bounded wait for everything that reaches the database. A publish (an MCP request may be one
  // too) keeps its own bound (publishWithin); this one is its backstop.
  app.use('*', async (c, next) => {
    const publish = c.req.method === 'POST' && (c.req.path.endsWith('/publish') || c.req.path === '/mcp');
    const deadline = new AbortController();
    c.set('deadline', deadline.signal);
    c.set('startedAt', Date.now());
    await withDeadline(next(), publish ? limits.publishMs + PUBLISH_GRACE_MS : limits.requestMs, `${c.req.method} ${c.req.path}`, deadline);
  });
  app.use('/v1/tenants/:tenant/*', bearerAuth(platform, { pathTenant: true }));
  app.use('/mcp', bearerAuth(platform, { pathTenant: false }));
  // A body is JSON or refused as such: a form-encoded body (curl -d without a content type) would
  // otherwise pass unread, as if no options had been given.
  app.use('/v1/tenants/:tenant/*', async (c, next) => {
    const type = c.req.header('content-type');
    const hasBody = (c.req.header('content-length') ?? '0') !== '0' || c.req.header('transfer-encoding') !== undefined;
    if (hasBody && !isJsonType(type))
      throw new ApiError(
        'unsupported_media_type',
        `the body must be JSON: send it with "Content-Type: application/json"${type ? ` (got ${JSON.stringify(type.slice(0, 100))})` : ' (no Content-Type was sent)'}`,
      );
    await next();
  });
  // Fair sharing: the tenant's turn (MCP tool calls take theirs one by one, see gateToolCalls).
  // A request with a large body (parsing, checking and storing it takes the event loop for tens of
  // milliseconds at a time) first waits for the tenant's one turn for large bodies, holding nothing
  // else: so a tenant's at-bound drafts are processed one at a time, and other tenants' requests run
  // between them.
  app.use('/v1/tenants/:tenant/*', async (c, next) => {
    const heavy = Number(c.req.header('content-length') ?? 0) >= HEAVY_BODY_BYTES;
    let endHeavy: (() => void) | undefined;
    let end: () => void;
    try {
      if (heavy) endHeavy = await heavyLimiter.acquire(c.var.tenant, c.req.raw.signal);
      end = await limiter.acquire(c.var.tenant, c.req.raw.signal);
    } catch (e) {
      endHeavy?.();
      if (!(e instanceof ClientGoneError)) throw e;
      // Nobody reads this answer: the client closed the connection while the request waited.
      c.var.facts.outcome = 'client_closed';
      return c.body(null, 499 as 400);
    }
    try {
      await next();
    } finally {
      end();
      endHeavy?.();
    }
  });
  // The body parsed (once) and checked for repeated keys — in the tenant's turn, after its token:
  // a request that waits, is refused or is not the tenant's costs the server no parse.
  app.use('/v1/tenants/:tenant/*', refuseDuplicateKeys);

  draftRoutes(app, platform);
  buildRoutes(app, platform, limits.publishMs);
  sessionRoutes(app, platform, deps.judge);
  policyRoutes(app, platform);

  app.openapi(
    {
      method: 'get',
      path: '/healthz',
      tags: ['service'],
      operationId: 'healthz',
      summary: 'Process and database health',
      security: [],
      responses: { 200: json(HealthzSchema, 'Up, and the database answers.'), 503: json(HealthzSchema, 'The database does not answer.') },
    },
    async (c) => {
      const base = { engine: platform.engine, version: deps.version, uptimeSeconds: Math.round((Date.now() - startedAt) / 1000) };
      try {
        await withDeadline(sql`select 1`.execute(platform.db), limits.healthzMs, 'the database check');
        return c.json({ ok: true, database: 'up' as const, ...base }, 200);
      } catch (e) {
        c.var.facts.outcome = 'database_unavailable';
        c.var.facts.error = describeCause(e);
        return c.json({ ok: false, database: 'down' as const, ...base }, 503);
      }
    },
  );

  // MCP over streamable HTTP, stateless: a server and transport per request, JSON responses.
  app.all('/mcp', async (c) => {
    // The body read once and refused when it repeats a key, as the HTTP API's bodies are.
    const body = await readMcpBody(c);
    if (body instanceof Response) return body;
    const server = createRemoteMcp(
      platform,
      c.var.tenant,
      c.var.facts,
      deps.version,
      { publishBy: c.var.startedAt + limits.publishMs, deadline: c.var.deadline },
      policy,
      deps.judge,
    );
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    const facts = c.var.facts;
    const endTurns = gateToolCalls(transport, () => limiter.acquire(c.var.tenant, c.req.raw.signal), {
      refused: (code) => {
        facts.outcome = code;
      },
    });
    try {
      return await transport.handleRequest(c.req.raw, body);
    } finally {
      await server.close().catch(() => {});
      endTurns();
    }
  });

  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    description: 'A tenant token: `bvl token create --tenant <t>` prints one.',
  });
  app.doc31('/openapi.json', (c) => ({
    openapi: '3.1.0',
    info: {
      title: 'bvl — Build Verification Loop',
      version: deps.version,
      description: 'verify_build as a service: stage drafts, verify (L1 graph lint + L2 render contract + latest L3 probes), publish through the gate.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    // The server the document was fetched from, as the client addressed it.
    servers: [{ url: new URL(c.req.url).origin, description: 'This bvl server' }],
    security: BEARER,
  }));

  // A known path asked with another method is a 405 naming the methods it takes (after auth, so a
  // caller without a token learns nothing more than the OpenAPI document says).
  const known = app.routes
    .filter((r) => r.method !== 'ALL')
    .map((r) => ({ method: r.method, path: new RegExp(`^${r.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z_]\w*/g, '[^/]+')}$`) }));
  app.notFound((c) => {
    const allowed = [...new Set(known.filter((r) => r.path.test(c.req.path)).map((r) => r.method))];
    if (allowed.length > 0) {
      if (allowed.includes('GET')) allowed.push('HEAD');
      const allow = allowed.sort().join(', ');
      throw new ApiError('method_not_allowed', `${c.req.method} is not a method of ${c.req.path}: it takes ${allow}`, undefined, { headers: { Allow: allow } });
    }
    c.var.facts.outcome = 'not_found';
    return c.json(toErrorResponse(notFound(c)).body, 404);
  });
  app.onError((e, c) => {
    let err: unknown = e;
    if (e instanceof HTTPException && !(e.cause instanceof ApiError)) {
      // hono's own: a body that is not JSON (400) and the like.
      err =
        e.status === 413
          ? new ApiError('payload_too_large', e.message || 'the body is too large')
          : e.status < 500
            ? new ApiError(e.status === 404 ? 'not_found' : 'invalid_request', e.message || 'invalid request')
            : e;
    }
    const r = toErrorResponse(err);
    c.var.facts.outcome = r.body.error;
    if (r.cause) c.var.facts.error = describeCause(r.cause);
    for (const [name, value] of Object.entries(r.headers ?? {})) c.header(name, value);
    if (r.body.error === 'database_unavailable') c.header('Retry-After', '5');
    return c.json(r.body satisfies ErrorBody, r.status as 400);
  });
  return app;
}

/** Whether a Content-Type names JSON: application/json or a +json type, with any parameters. */
export function isJsonType(type: string | undefined): boolean {
  return type !== undefined && /^\s*application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i.test(type);
}

/**
 * Reads a request's body within `ms`, or throws a 408 `request_timeout` (and stops reading): a
 * slow upload is the client's problem, not the database's.
 */
async function receiveBody(request: Request, ms: number): Promise<ArrayBuffer> {
  let timer: NodeJS.Timeout | undefined;
  const reading = request.arrayBuffer();
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new ApiError('request_timeout', `the request body was not received within ${ms} ms: send it again, whole`, undefined, {
            headers: { Connection: 'close' },
          }),
        ),
      ms,
    );
  });
  try {
    return await Promise.race([reading, late]);
  } finally {
    clearTimeout(timer);
    reading.catch(() => {});
  }
}
