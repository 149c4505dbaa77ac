import type { PlatformContext } from '@bvl/platform';
import { renderCardHtml } from '@bvl/verify-build';
import { createRoute, z } from '@hono/zod-openapi';
import { accepts } from 'hono/accepts';
import {
  ApplyFixInput,
  ApplyFixResultSchema,
  ErrorSchema,
  HealthQuery,
  HealthSchema,
  PublishIdParams,
  PublishInput,
  PublishResultSchema,
  PublishStatusSchema,
  ScopeParams,
  VerifyInput,
  VerifyResultSchema,
} from '../schemas.ts';
import { healthCard, TOOLS } from '../tools.ts';
import { type ApiApp, BEARER, ERRORS, json, PACKAGE_PATH, runTool, SESSION_REQUIRED } from './route-kit.ts';

const tags = ['build'];

/** HTTP status of a publish outcome: refused by the gate is a conflict with the drafts' state; a rolled-back publish is a failure. */
const PUBLISH_STATUS = { published: 200, nothing_to_publish: 200, refused: 409, failed: 500, accepted: 202 } as const;

/** verify_build, the gated publish, and the build-health card (JSON, or HTML for a browser). */
export function buildRoutes(app: ApiApp, platform: PlatformContext, publishMs: number): void {
  app.openapi(
    createRoute({
      method: 'post',
      path: `${PACKAGE_PATH}/verify`,
      tags,
      security: BEARER,
      operationId: 'verify_build',
      summary: 'verify_build',
      description: TOOLS.verify_build.description,
      request: { params: ScopeParams, body: { content: { 'application/json': { schema: VerifyInput } }, required: false } },
      responses: { 200: json(VerifyResultSchema, 'The verification: issues are data (ok=false when any error remains).'), ...SESSION_REQUIRED, ...ERRORS },
    }),
    async (c) => {
      const body = c.req.valid('json') ?? {};
      return c.json(await runTool(c, TOOLS.verify_build, { ...body, package: c.req.valid('param').package }, platform), 200);
    },
  );
  app.openapi(
    createRoute({
      method: 'post',
      path: `${PACKAGE_PATH}/apply-fix`,
      tags,
      security: BEARER,
      operationId: 'apply_fix',
      summary: 'apply_fix',
      description: TOOLS.apply_fix.description,
      request: { params: ScopeParams, body: { content: { 'application/json': { schema: ApplyFixInput } }, required: true } },
      responses: { 200: json(ApplyFixResultSchema, 'Applied: what changed, the new draftVersion, the issues the patches fixed and revealed.'), ...ERRORS },
    }),
    async (c) => c.json(await runTool(c, TOOLS.apply_fix, { ...c.req.valid('json'), package: c.req.valid('param').package }, platform), 200),
  );
  app.openapi(
    createRoute({
      method: 'post',
      path: `${PACKAGE_PATH}/publish`,
      tags,
      security: BEARER,
      operationId: 'publish',
      summary: 'Publish (the gate)',
      description: TOOLS.publish.description,
      request: { params: ScopeParams, body: { content: { 'application/json': { schema: PublishInput } }, required: false } },
      responses: {
        200: json(PublishResultSchema, 'Published (or nothing to publish). L3 probe issues are in `issues`.'),
        202: json(
          PublishResultSchema,
          'Accepted: the publish committed and is still seeding or probing at the request bound (`status: "accepted"`). It goes on; `poll` (GET …/publishes/{publishId}) follows it.',
        ),
        409: json(
          z.union([PublishResultSchema, ErrorSchema]),
          'Refused by the gate: L1/L2 errors in `issues`; or (an Error `session_stopped`) the named build session has stopped or was cancelled. Nothing was published.',
        ),
        500: json(PublishResultSchema, 'The publish rolled back (`error` says why); the previous published state is intact.'),
        ...SESSION_REQUIRED,
        ...ERRORS,
      },
    }),
    async (c) => {
      const body = c.req.valid('json') ?? {};
      const r = await runTool(c, TOOLS.publish, { ...body, package: c.req.valid('param').package }, platform, { publishBy: c.var.startedAt + publishMs });
      if (r.outcome === 'accepted' && typeof r.poll === 'string') c.header('Location', r.poll);
      return c.json(r, PUBLISH_STATUS[r.outcome]);
    },
  );
  app.openapi(
    createRoute({
      method: 'get',
      path: `${PACKAGE_PATH}/publishes/{id}`,
      tags,
      security: BEARER,
      operationId: 'get_publish',
      summary: 'Follow a publish',
      description: TOOLS.get_publish.description,
      request: { params: PublishIdParams },
      responses: { 200: json(PublishStatusSchema, 'Where the publish is, and its answer once known.'), ...ERRORS },
    }),
    async (c) => {
      const p = c.req.valid('param');
      return c.json(await runTool(c, TOOLS.get_publish, { package: p.package, publishId: p.id }, platform), 200);
    },
  );
  app.openapi(
    createRoute({
      method: 'get',
      path: `${PACKAGE_PATH}/health`,
      tags,
      security: BEARER,
      operationId: 'build_health',
      summary: 'Build-health card',
      description: `${TOOLS.build_health.description} JSON by default; a self-contained HTML page for \`Accept: text/html\`.`,
      request: { params: ScopeParams, query: HealthQuery },
      responses: {
        200: {
          description: 'The card.',
          content: { 'application/json': { schema: HealthSchema }, 'text/html': { schema: z.string().openapi({ description: 'The card as a page.' }) } },
        },
        ...ERRORS,
      },
    }),
    async (c) => {
      const p = c.req.valid('param');
      const q = c.req.valid('query');
      const input = { package: p.package, ...(q.session ? { session: q.session } : {}) };
      const type = accepts(c, { header: 'Accept', supports: ['application/json', 'text/html'], default: 'application/json' });
      if (type === 'text/html') {
        c.var.facts.package = p.package;
        const { card } = await healthCard(platform, c.var.tenant, input);
        return c.html(renderCardHtml(card, `Build health — ${p.tenant} / ${p.package}`), 200);
      }
      return c.json(await runTool(c, TOOLS.build_health, input, platform), 200);
    },
  );
}
