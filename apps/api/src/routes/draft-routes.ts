import type { PlatformContext } from '@bvl/platform';
import { createRoute } from '@hono/zod-openapi';
import { notFound } from '../auth.ts';
import {
  ArtifactBodySchema,
  ArtifactParams,
  DiscardResultSchema,
  DraftListSchema,
  DraftSchema,
  ScopeParams,
  StageDraftsInput,
  WriteResultSchema,
} from '../schemas.ts';
import { TOOLS } from '../tools.ts';
import { type ApiApp, BEARER, ERRORS, json, PACKAGE_PATH, runTool } from './route-kit.ts';

const tags = ['drafts'];

/** Drafts: stage (PUT one artifact), list, read, discard, and tombstones that retire a published artifact. */
export function draftRoutes(app: ApiApp, platform: PlatformContext): void {
  app.openapi(
    createRoute({
      method: 'put',
      path: `${PACKAGE_PATH}/drafts/{type}/{name}`,
      tags,
      security: BEARER,
      operationId: 'stage_draft',
      summary: 'Stage one artifact as a draft',
      description: `${TOOLS.stage_draft.description} The body is the artifact as in the stack format; a view container stages one draft per view.`,
      request: { params: ArtifactParams, body: { content: { 'application/json': { schema: ArtifactBodySchema } }, required: true } },
      responses: { 200: json(WriteResultSchema, 'Staged; `issues` are the L1 issues this write caused.'), ...ERRORS },
    }),
    async (c) => {
      const p = c.req.valid('param');
      return c.json(await runTool(c, TOOLS.stage_draft, { package: p.package, type: p.type, name: p.name, body: c.req.valid('json') }, platform), 200);
    },
  );
  app.openapi(
    createRoute({
      method: 'post',
      path: `${PACKAGE_PATH}/drafts`,
      tags,
      security: BEARER,
      operationId: 'stage_drafts',
      summary: 'Stage many artifacts as drafts',
      description: TOOLS.stage_drafts.description,
      request: { params: ScopeParams, body: { content: { 'application/json': { schema: StageDraftsInput } }, required: true } },
      responses: { 200: json(WriteResultSchema, 'Staged; `issues` are the L1 issues the artifacts caused.'), ...ERRORS },
    }),
    async (c) => c.json(await runTool(c, TOOLS.stage_drafts, { ...c.req.valid('json'), package: c.req.valid('param').package }, platform), 200),
  );
  app.openapi(
    createRoute({
      method: 'get',
      path: `${PACKAGE_PATH}/drafts`,
      tags,
      security: BEARER,
      operationId: 'list_drafts',
      summary: 'List drafts',
      description: TOOLS.list_drafts.description,
      request: { params: ScopeParams },
      responses: { 200: json(DraftListSchema, 'The drafts.'), ...ERRORS },
    }),
    async (c) => c.json(await runTool(c, TOOLS.list_drafts, { package: c.req.valid('param').package }, platform), 200),
  );
  app.openapi(
    createRoute({
      method: 'get',
      path: `${PACKAGE_PATH}/drafts/{type}/{name}`,
      tags,
      security: BEARER,
      operationId: 'get_draft',
      summary: 'Read one draft',
      description: TOOLS.get_draft.description,
      request: { params: ArtifactParams },
      responses: { 200: json(DraftSchema, 'The draft.'), ...ERRORS },
    }),
    async (c) => {
      const p = c.req.valid('param');
      return c.json(await runTool(c, TOOLS.get_draft, { package: p.package, type: p.type, name: p.name }, platform), 200);
    },
  );
  app.openapi(
    createRoute({
      method: 'delete',
      path: `${PACKAGE_PATH}/drafts/{type}/{name}`,
      tags,
      security: BEARER,
      operationId: 'discard_draft',
      summary: 'Discard one draft',
      request: { params: ArtifactParams },
      responses: { 200: json(DiscardResultSchema, 'Discarded.'), ...ERRORS },
    }),
    async (c) => {
      const p = c.req.valid('param');
      const r = await runTool(c, TOOLS.discard_drafts, { package: p.package, artifacts: [{ type: p.type, name: p.name }] }, platform);
      if (r.discarded === 0) throw notFound(c);
      return c.json(r, 200);
    },
  );
  app.openapi(
    createRoute({
      method: 'delete',
      path: `${PACKAGE_PATH}/drafts`,
      tags,
      security: BEARER,
      operationId: 'discard_drafts',
      summary: "Discard all the package's drafts",
      request: { params: ScopeParams },
      responses: { 200: json(DiscardResultSchema, 'Discarded.'), ...ERRORS },
    }),
    async (c) => c.json(await runTool(c, TOOLS.discard_drafts, { package: c.req.valid('param').package }, platform), 200),
  );
  app.openapi(
    createRoute({
      method: 'put',
      path: `${PACKAGE_PATH}/tombstones/{type}/{name}`,
      tags,
      security: BEARER,
      operationId: 'retire_artifact',
      summary: 'Retire a published artifact (tombstone draft)',
      description: TOOLS.retire_artifact.description,
      request: { params: ArtifactParams },
      responses: { 200: json(WriteResultSchema, 'Staged; `issues` are the L1 issues the retirement causes.'), ...ERRORS },
    }),
    async (c) => {
      const p = c.req.valid('param');
      return c.json(await runTool(c, TOOLS.retire_artifact, { package: p.package, type: p.type, name: p.name }, platform), 200);
    },
  );
}
