import type { AgentClient } from '@bvl/build-agent';
import type { PlatformContext } from '@bvl/platform';
import { createRoute } from '@hono/zod-openapi';
import {
  ListSessionsQuery,
  ReviewInput,
  ReviewSchema,
  RoundListSchema,
  ScopeParams,
  SessionInput,
  SessionListSchema,
  SessionParams,
  SessionSchema,
  TranscriptSchema,
} from '../schemas.ts';
import { TOOLS } from '../tools.ts';
import { type ApiApp, BEARER, ERRORS, error, json, PACKAGE_PATH, runTool } from './route-kit.ts';

const tags = ['sessions'];

/** Build sessions: create, read, list, their rounds and transcript, cancel; the intent review (with `judge`, the server's judge model). */
export function sessionRoutes(app: ApiApp, platform: PlatformContext, judge?: AgentClient | undefined): void {
  app.openapi(
    createRoute({
      method: 'post',
      path: `${PACKAGE_PATH}/sessions`,
      tags,
      security: BEARER,
      operationId: 'create_session',
      summary: 'Start a build session',
      description: TOOLS.create_session.description,
      request: { params: ScopeParams, body: { content: { 'application/json': { schema: SessionInput } }, required: true } },
      responses: {
        201: json(SessionSchema, 'The session (`capped` lists the bounds the tenant’s policy capped).'),
        ...ERRORS,
        429: {
          ...ERRORS[429],
          ...error(
            '`session_limited`: the package’s sessions in the policy’s window hold all the rounds or spend it allows; `too_many_requests`: the tenant already has its share running and queued. `Retry-After` says when to retry.',
          ),
        },
      },
    }),
    async (c) => c.json(await runTool(c, TOOLS.create_session, { ...c.req.valid('json'), package: c.req.valid('param').package }, platform), 201),
  );
  app.openapi(
    createRoute({
      method: 'get',
      path: `${PACKAGE_PATH}/sessions`,
      tags,
      security: BEARER,
      operationId: 'list_sessions',
      summary: 'List sessions',
      description: TOOLS.list_sessions.description,
      request: { params: ScopeParams, query: ListSessionsQuery },
      responses: { 200: json(SessionListSchema, 'Newest first.'), ...ERRORS },
    }),
    async (c) => c.json(await runTool(c, TOOLS.list_sessions, { package: c.req.valid('param').package, ...c.req.valid('query') }, platform), 200),
  );
  app.openapi(
    createRoute({
      method: 'get',
      path: `${PACKAGE_PATH}/sessions/{id}`,
      tags,
      security: BEARER,
      operationId: 'get_session',
      summary: 'Read a session',
      description: TOOLS.get_session.description,
      request: { params: SessionParams },
      responses: { 200: json(SessionSchema, 'The session.'), ...ERRORS },
    }),
    async (c) => {
      const p = c.req.valid('param');
      return c.json(await runTool(c, TOOLS.get_session, { package: p.package, id: p.id }, platform), 200);
    },
  );
  app.openapi(
    createRoute({
      method: 'get',
      path: `${PACKAGE_PATH}/sessions/{id}/rounds`,
      tags,
      security: BEARER,
      operationId: 'list_rounds',
      summary: "A session's rounds",
      description: TOOLS.list_rounds.description,
      request: { params: SessionParams },
      responses: { 200: json(RoundListSchema, 'In order.'), ...ERRORS },
    }),
    async (c) => {
      const p = c.req.valid('param');
      return c.json(await runTool(c, TOOLS.list_rounds, { package: p.package, id: p.id }, platform), 200);
    },
  );
  app.openapi(
    createRoute({
      method: 'get',
      path: `${PACKAGE_PATH}/sessions/{id}/transcript`,
      tags,
      security: BEARER,
      operationId: 'get_transcript',
      summary: "A session's transcript",
      description: TOOLS.get_transcript.description,
      request: { params: SessionParams },
      responses: { 200: json(TranscriptSchema, 'Every turn, in order.'), ...ERRORS },
    }),
    async (c) => {
      const p = c.req.valid('param');
      return c.json(await runTool(c, TOOLS.get_transcript, { package: p.package, id: p.id }, platform), 200);
    },
  );
  app.openapi(
    createRoute({
      method: 'post',
      path: `${PACKAGE_PATH}/review`,
      tags,
      security: BEARER,
      operationId: 'review_intent',
      summary: 'Review the build against its goal',
      description: TOOLS.review_intent.description,
      request: { params: ScopeParams, body: { content: { 'application/json': { schema: ReviewInput } }, required: true } },
      responses: { 200: json(ReviewSchema, 'The verdict and its warnings.'), ...ERRORS },
    }),
    async (c) => c.json(await runTool(c, TOOLS.review_intent, { ...c.req.valid('json'), package: c.req.valid('param').package }, platform, { judge }), 200),
  );
  app.openapi(
    createRoute({
      method: 'post',
      path: `${PACKAGE_PATH}/sessions/{id}/cancel`,
      tags,
      security: BEARER,
      operationId: 'cancel_session',
      summary: 'Cancel a session',
      description: TOOLS.cancel_session.description,
      request: { params: SessionParams },
      responses: { 200: json(SessionSchema, 'The session, stopped as cancelled.'), ...ERRORS },
    }),
    async (c) => {
      const p = c.req.valid('param');
      return c.json(await runTool(c, TOOLS.cancel_session, { package: p.package, id: p.id }, platform), 200);
    },
  );
}
