// The service's operations, declared once. Each is a tool: a zod input (the package plus what the
// operation takes), a zod output, and one function over packages/verify-build and packages/platform.
// The HTTP routes and the MCP endpoint both call these, so both surfaces are the same tools.

import { discardDrafts, fromStoredArtifact, listDrafts, type PackageScope, type PlatformContext, readOverlayRows } from '@bvl/platform';
import {
  cancelSession,
  cardSession,
  createSession,
  formatCardLine,
  getSession,
  listRounds,
  listSessions,
  loadSession,
  publishBuild,
  SessionError,
  type SessionView,
  verifyBuild,
} from '@bvl/verify-build';
import { z } from '@hono/zod-openapi';
import { retireArtifact, stageArtifact } from './run-draft-writes.ts';
import { requirePackage } from './run-packages.ts';
import {
  ArtifactBodySchema,
  ArtifactTypeSchema,
  DiscardResultSchema,
  DraftListSchema,
  DraftSchema,
  HealthSchema,
  MAX_NAME,
  PackageParam,
  PublishInput,
  PublishResultSchema,
  RoundListSchema,
  SessionInput,
  SessionListSchema,
  SessionSchema,
  VerifyInput,
  VerifyResultSchema,
  WriteResultSchema,
} from './schemas.ts';
import { ApiError } from './to-error-response.ts';

/** One operation of the service. */
export interface Tool<I extends z.ZodObject = z.ZodObject, O extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly input: I;
  readonly output: O;
  /** Read-only operations may be retried freely; MCP clients see this as a hint. */
  readonly readOnly: boolean;
  /** Returns the output the schema describes (checked against it by the MCP server and the tests). */
  run(ctx: PlatformContext, tenant: string, input: z.output<I>): Promise<object>;
}

const defineTool = <I extends z.ZodObject, O extends z.ZodType>(t: Tool<I, O>): Tool<I, O> => t;

const Pkg = { package: PackageParam.describe('The package (a tenant holds several).') };
const Slot = { ...Pkg, type: ArtifactTypeSchema, name: z.string().min(1).max(MAX_NAME) };
const SessionId = { ...Pkg, id: z.string().min(1).max(100).describe('The session id.') };

const scopeOf = (tenant: string, input: { package: string }): PackageScope => ({ tenant, package: input.package });
const iso = (d: Date | string) => new Date(d).toISOString();

/** A session of this package, or not_found (another package's or tenant's session does not exist here). */
async function packageSession(ctx: PlatformContext, scope: PackageScope, id: string): Promise<SessionView> {
  const s = await getSession(ctx, { tenant: scope.tenant, id });
  if (s.package !== scope.package) throw new SessionError(`unknown session ${JSON.stringify(id)} in package ${JSON.stringify(scope.package)}`, 'not_found');
  return s;
}

export const TOOLS = {
  stage_draft: defineTool({
    name: 'stage_draft',
    title: 'Stage a draft',
    description:
      'Stage one artifact (its JSON as in the stack format) as a draft of the package. Answers with the L1 issues this write caused (new since before it) — fix them before staging more.',
    input: z.object({ ...Slot, body: ArtifactBodySchema }),
    output: WriteResultSchema,
    readOnly: false,
    run: (ctx, tenant, i) => stageArtifact(ctx, scopeOf(tenant, i), { type: i.type, name: i.name, body: i.body }),
  }),
  list_drafts: defineTool({
    name: 'list_drafts',
    title: 'List drafts',
    description: "The package's staged drafts (tombstones included), sorted by type and name.",
    input: z.object(Pkg),
    output: DraftListSchema,
    readOnly: true,
    run: async (ctx, tenant, i) => {
      await requirePackage(ctx, scopeOf(tenant, i));
      return { drafts: (await listDrafts(ctx, scopeOf(tenant, i))).map((d) => ({ ...d, updatedAt: iso(d.updatedAt) })) };
    },
  }),
  get_draft: defineTool({
    name: 'get_draft',
    title: 'Read a draft',
    description: 'One staged draft of the package with its stored body (a view: its config, and where it sits in its container).',
    input: z.object(Slot),
    output: DraftSchema,
    readOnly: true,
    run: async (ctx, tenant, i) => {
      const scope = scopeOf(tenant, i);
      await requirePackage(ctx, scope);
      const summary = (await listDrafts(ctx, scope)).find((d) => d.type === i.type && d.name === i.name);
      const row = (await readOverlayRows(ctx.db, tenant, i.package)).find(
        (r) => r.state === 'draft' && r.package === i.package && r.type === i.type && r.name === i.name,
      );
      if (!summary || !row) throw new ApiError('not_found', `package ${JSON.stringify(i.package)} has no draft ${i.type} ${JSON.stringify(i.name)}`);
      const a = fromStoredArtifact(row, true);
      return {
        ...summary,
        updatedAt: iso(summary.updatedAt),
        body: summary.tombstone ? null : (a?.body ?? row.body),
        ...(a?.type === 'view' ? { view: { object: a.object, key: a.key, viewKind: a.viewKind, container: a.container } } : {}),
      };
    },
  }),
  discard_drafts: defineTool({
    name: 'discard_drafts',
    title: 'Discard drafts',
    description: "Discard the package's drafts: all of them, or only the listed artifacts.",
    input: z.object({ ...Pkg, artifacts: z.array(z.object({ type: ArtifactTypeSchema, name: z.string().min(1).max(MAX_NAME) })).optional() }),
    output: DiscardResultSchema,
    readOnly: false,
    run: async (ctx, tenant, i) => {
      await requirePackage(ctx, scopeOf(tenant, i));
      return { discarded: await discardDrafts(ctx, scopeOf(tenant, i), i.artifacts) };
    },
  }),
  retire_artifact: defineTool({
    name: 'retire_artifact',
    title: 'Retire a published artifact',
    description:
      'Stage a tombstone that retires an artifact the package has published; the next publish removes it. Answers with the L1 issues that causes (references that now dangle).',
    input: z.object(Slot),
    output: WriteResultSchema,
    readOnly: false,
    run: (ctx, tenant, i) => retireArtifact(ctx, scopeOf(tenant, i), { type: i.type, name: i.name }),
  }),
  verify_build: defineTool({
    name: 'verify_build',
    title: 'Verify the build',
    description:
      'L1 graph lint + L2 render contract over published ⊕ drafts, plus the latest L3 runtime probes. In a session the safe fixer runs first and the round is recorded; `session.next` says whether to repair, publish or stop. Blocking issues are data: ok=false, publishable=false.',
    input: VerifyInput.extend(Pkg),
    output: VerifyResultSchema,
    readOnly: false,
    run: async (ctx, tenant, i) => {
      await requirePackage(ctx, scopeOf(tenant, i));
      return verifyBuild(ctx, { ...scopeOf(tenant, i), session: i.session, usage: i.usage, fix: i.fix });
    },
  }),
  publish: defineTool({
    name: 'publish',
    title: 'Publish (gated)',
    description:
      "Publish the package's drafts. Refused (outcome=refused, nothing published) while L1 or L2 has an error; otherwise promotes, applies seeds and runs the L3 probes on the live tables.",
    input: PublishInput.extend(Pkg),
    output: PublishResultSchema,
    readOnly: false,
    run: async (ctx, tenant, i) => {
      await requirePackage(ctx, scopeOf(tenant, i));
      return publishBuild(ctx, { ...scopeOf(tenant, i), session: i.session, usage: i.usage, dropData: i.dropData, env: i.env });
    },
  }),
  build_health: defineTool({
    name: 'build_health',
    title: 'Build-health card',
    description: 'The build-health card of the package: structure, renders, rows, widgets, warnings, the issues by artifact and (given a session) its rounds.',
    input: z.object({ ...Pkg, session: z.string().min(1).max(100).optional() }),
    output: HealthSchema,
    readOnly: true,
    run: async (ctx, tenant, i) => {
      const scope = scopeOf(tenant, i);
      await requirePackage(ctx, scope);
      const session = i.session !== undefined ? await packageSession(ctx, scope, i.session) : undefined;
      const { card } = await verifyBuild(ctx, scope);
      const full = session ? { ...card, session: cardSession(await loadSession(ctx, scope, session.id)) } : card;
      return { card: full, line: formatCardLine(full) };
    },
  }),
  create_session: defineTool({
    name: 'create_session',
    title: 'Start a build session',
    description: 'Start a bounded build session towards a goal (default: 2 repair rounds). Pass its id to verify_build and publish.',
    input: SessionInput.extend(Pkg),
    output: SessionSchema,
    readOnly: false,
    run: (ctx, tenant, i) => createSession(ctx, { ...scopeOf(tenant, i), goal: i.goal, bounds: i.bounds }),
  }),
  get_session: defineTool({
    name: 'get_session',
    title: 'Read a session',
    description: 'A build session: status, stop reason, rounds, usage, and the next step.',
    input: z.object(SessionId),
    output: SessionSchema,
    readOnly: true,
    run: (ctx, tenant, i) => packageSession(ctx, scopeOf(tenant, i), i.id),
  }),
  list_sessions: defineTool({
    name: 'list_sessions',
    title: 'List sessions',
    description: "The package's build sessions, newest first.",
    input: z.object({ ...Pkg, limit: z.number().int().min(1).max(500).optional() }),
    output: SessionListSchema,
    readOnly: true,
    run: async (ctx, tenant, i) => {
      await requirePackage(ctx, scopeOf(tenant, i));
      return { sessions: await listSessions(ctx, scopeOf(tenant, i), i.limit) };
    },
  }),
  list_rounds: defineTool({
    name: 'list_rounds',
    title: "A session's rounds",
    description: 'Every recorded round of a session: issues, fingerprints fixed/new/reappeared, auto-fixes, the decision.',
    input: z.object(SessionId),
    output: RoundListSchema,
    readOnly: true,
    run: async (ctx, tenant, i) => {
      await packageSession(ctx, scopeOf(tenant, i), i.id);
      return { rounds: await listRounds(ctx, { tenant, id: i.id }) };
    },
  }),
  cancel_session: defineTool({
    name: 'cancel_session',
    title: 'Cancel a session',
    description: 'Stop a session as cancelled; the drafts stay as they are.',
    input: z.object(SessionId),
    output: SessionSchema,
    readOnly: false,
    run: async (ctx, tenant, i) => {
      await packageSession(ctx, scopeOf(tenant, i), i.id);
      return cancelSession(ctx, { tenant, id: i.id });
    },
  }),
} as const;

export type ToolName = keyof typeof TOOLS;

/** What a tool's result says for the request log: an outcome word, and the session round it recorded. */
export function outcomeOf(name: ToolName, output: object): { outcome: string; session?: string; round?: number } {
  const o = output as {
    ok?: boolean;
    publishable?: boolean;
    outcome?: string;
    unchanged?: boolean;
    errors?: number;
    session?: { id: string; rounds: number } | null;
  };
  const round = o.session ? { session: o.session.id, round: o.session.rounds - 1 } : {};
  switch (name) {
    case 'verify_build':
      return { outcome: o.ok ? 'clean' : o.publishable ? 'runtime_errors' : 'errors', ...round };
    case 'publish':
      return { outcome: o.outcome ?? 'unknown', ...round };
    case 'stage_draft':
    case 'retire_artifact':
      return { outcome: o.errors ? 'staged_with_errors' : 'staged' };
    default:
      return { outcome: 'ok' };
  }
}
