// The service's operations, declared once. Each is a tool: a zod input (the package plus what the
// operation takes), a zod output, and one function over packages/verify-build and packages/platform.
// The HTTP routes and the MCP endpoint both call these, so both surfaces are the same tools.

import { type AgentClient, reviewPackage } from '@bvl/build-agent';
import { discardDrafts, fromStoredArtifact, listDrafts, type PackageScope, type PlatformContext, readOverlayRows, tenantSchema } from '@bvl/platform';
import {
  answerPublish,
  answerVerify,
  applyFix,
  type BuildCard,
  cancelSession,
  cardSession,
  cardView,
  createSession,
  DEFAULT_POLICY,
  type Detail,
  type EffectivePolicy,
  formatCardLine,
  fullIssue,
  getSession,
  getTenantPolicy,
  idLookup,
  issueIds,
  listRounds,
  listSessions,
  loadSession,
  type PublishBuildResult,
  pageIssues,
  publishBuild,
  readTranscript,
  SessionError,
  type SessionView,
  type ViewOptions,
  verifyBuild,
} from '@bvl/verify-build';
import { z } from '@hono/zod-openapi';
import { retireArtifact, stageArtifact, stageArtifacts, type WriteResult } from './run-draft-writes.ts';
import { requirePackage } from './run-packages.ts';
import { type PublishHooks, pollPath, publishStatus, publishWithin } from './run-publish-deadline.ts';
import {
  ApplyFixInput,
  ApplyFixResultSchema,
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
  PublishStatusSchema,
  ReviewInput,
  ReviewSchema,
  RoundListSchema,
  SessionInput,
  SessionListSchema,
  SessionSchema,
  StageDraftsInput,
  TranscriptSchema,
  VerifyInput,
  VerifyResultSchema,
  WriteResultSchema,
} from './schemas.ts';
import { ApiError } from './to-error-response.ts';
import { verifyOffloaded } from './verify-offload.ts';

/** One operation of the service. */
export interface Tool<I extends z.ZodObject = z.ZodObject, O extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly input: I;
  readonly output: O;
  /** Read-only operations may be retried freely; MCP clients see this as a hint. */
  readonly readOnly: boolean;
  /** False: an HTTP route only, not an MCP tool (tools/list is read into a model's context on every turn). */
  readonly mcp?: false;
  /** Returns the output the schema describes (checked against it by the MCP server and the tests), in the surface's default detail. */
  run(ctx: PlatformContext, tenant: string, input: z.output<I>, surface: Surface): Promise<object>;
}

/** What differs between the surfaces that serve the tools: the detail an answer has by default (HTTP full, MCP summary), and the server's default policy. */
export interface Surface {
  readonly detail: Detail;
  /** When a publish's bound passes (epoch ms): past it, cancelled before the commit, `accepted` after (see publishWithin). None: no bound. */
  readonly publishBy?: number | undefined;
  /** The request's own bound (its backstop): aborting it cancels a publish not yet committing. */
  readonly deadline?: AbortSignal | undefined;
  /** The server's default policy (a tenant's own policy overrides it field by field); absent: DEFAULT_POLICY. */
  readonly policy?: EffectivePolicy | undefined;
  /** The judge model review_intent calls; absent when the server has none configured. */
  readonly judge?: AgentClient | undefined;
}

/**
 * Where the tenant's policy requires a session, a verify or publish without one is refused
 * (SessionError `required`: HTTP 428 `session_required`), naming how to open one. Called by the
 * verify_build and publish tools only: the CLI's local commands and `bvl mcp` over stdio act on the
 * user's own files and database and never pass here.
 */
async function requireSession(ctx: PlatformContext, tenant: string, input: { package: string; session?: string | undefined }, surface: Surface, what: string) {
  if (input.session !== undefined) return;
  const policy = (await getTenantPolicy(ctx, tenant, surface.policy ?? DEFAULT_POLICY)).effective;
  if (policy.requireSession)
    throw new SessionError(
      `tenant ${JSON.stringify(tenant)} requires a build session to ${what}: open one with create_session (POST /v1/tenants/${tenant}/packages/${input.package}/sessions {"goal": "…"}) and pass its id as "session"`,
      'required',
    );
}

/** A draft write's answer: what it wrote, and the issues it caused in the view every answer uses. */
function answerWrite(r: WriteResult, options: Pick<ViewOptions, 'detail' | 'limit'>, surface: Surface) {
  const { issues, issueIds: ids, errors, warnings, ...rest } = r;
  const page = pageIssues(issues, ids, r.draftVersion, { detail: options.detail, limit: options.limit }, surface.detail);
  const { detail: _detail, more, ...fields } = page;
  return {
    ...rest,
    errors,
    warnings,
    ...fields,
    ...(more
      ? {
          more: {
            errors: more.errors,
            warnings: more.warnings,
            next: `${more.errors + more.warnings} more issue(s) this write caused: verify_build lists every issue, with limit and cursor`,
          },
        }
      : {}),
  };
}

/** The build-health card of a package (with a session's rounds when given): what build_health answers and the HTML page draws. */
export async function healthCard(ctx: PlatformContext, tenant: string, input: { package: string; session?: string | undefined }) {
  const scope = scopeOf(tenant, input);
  await requirePackage(ctx, scope);
  const session = input.session !== undefined ? await packageSession(ctx, scope, input.session) : undefined;
  const r = await verifyBuild(ctx, scope);
  const card: BuildCard = session ? { ...r.card, session: cardSession(await loadSession(ctx, scope, session.id)) } : r.card;
  return { card, issues: r.issues, draftVersion: r.draftVersion };
}

const defineTool = <I extends z.ZodObject, O extends z.ZodType>(t: Tool<I, O>): Tool<I, O> => t;

const Pkg = { package: PackageParam };
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
    description: 'Stage one artifact (its stack-format JSON) as a draft. Answers with the L1 issues the write caused.',
    input: z.object({ ...Slot, body: ArtifactBodySchema }),
    output: WriteResultSchema,
    readOnly: false,
    run: async (ctx, tenant, i, surface) =>
      answerWrite(await stageArtifact(ctx, scopeOf(tenant, i), { type: i.type, name: i.name, body: i.body }), {}, surface),
  }),
  stage_drafts: defineTool({
    name: 'stage_drafts',
    title: 'Stage many drafts',
    description: 'Stage many artifacts at once; answers with the L1 issues they caused.',
    input: StageDraftsInput.extend(Pkg),
    output: WriteResultSchema,
    readOnly: false,
    run: async (ctx, tenant, i, surface) => answerWrite(await stageArtifacts(ctx, scopeOf(tenant, i), i.artifacts), i, surface),
  }),
  list_drafts: defineTool({
    name: 'list_drafts',
    title: 'List drafts',
    description: 'The staged drafts (tombstones included).',
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
    description: 'One staged draft with its stored body (a view: its config and container).',
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
    description: 'Discard all drafts, or the listed ones.',
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
    run: async (ctx, tenant, i, surface) => answerWrite(await retireArtifact(ctx, scopeOf(tenant, i), { type: i.type, name: i.name }), {}, surface),
  }),
  verify_build: defineTool({
    name: 'verify_build',
    title: 'Verify the build',
    description:
      'L1 graph lint + L2 render contract over published ⊕ drafts, plus the latest L3 probes. In a session the safe fixer runs first and the round is recorded; `next` says repair, publish or stop. Issues are data (ok=false), errors first; `more` says what a page left out.',
    input: VerifyInput.extend(Pkg),
    output: VerifyResultSchema,
    readOnly: false,
    run: async (ctx, tenant, i, surface) => {
      await requirePackage(ctx, scopeOf(tenant, i));
      await requireSession(ctx, tenant, i, surface, 'verify');
      return answerVerify(
        await verifyBuild(ctx, { ...scopeOf(tenant, i), session: i.session, usage: i.usage, fix: i.fix, verify: verifyOffloaded }),
        i,
        surface.detail,
      );
    },
  }),
  apply_fix: defineTool({
    name: 'apply_fix',
    title: 'Apply offered patches',
    description:
      'Apply the patches of issues by patchId (from the latest answer). Verified in memory first; refused, nothing applied, if the drafts changed since they were offered or a patch does not fix its issue.',
    input: ApplyFixInput.extend(Pkg),
    output: ApplyFixResultSchema,
    readOnly: false,
    run: async (ctx, tenant, i, surface) => {
      const scope = scopeOf(tenant, i);
      await requirePackage(ctx, scope);
      const r = await applyFix(ctx, { ...scope, patches: i.patches, draftVersion: i.draftVersion });
      const { issues, errors, warnings, ...rest } = r;
      const ids = issueIds(issues);
      const { detail: _detail, ...page } = pageIssues(issues, ids, r.draftVersion, { detail: i.detail, limit: i.limit }, surface.detail);
      return { ...rest, errors, warnings, ...page };
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
    run: async (ctx, tenant, i, surface) => {
      const scope = scopeOf(tenant, i);
      await requireSession(ctx, tenant, i, surface, 'publish');
      const run = async (hooks?: PublishHooks) => {
        await requirePackage(ctx, scope);
        return publishBuild(ctx, {
          ...scope,
          session: i.session,
          usage: i.usage,
          dropData: i.dropData,
          allowDataChange: i.allowDataChange,
          env: i.env,
          ...hooks,
        });
      };
      // A publish the lost connection rolled back is the database's failure, not the publish's: 503.
      const answer = (r: PublishBuildResult) => {
        if (r.databaseUnavailable) throw new ApiError('database_unavailable', `${r.error ?? 'the publish rolled back'}; retry shortly`);
        return answerPublish(r, i, surface.detail);
      };
      if (surface.publishBy === undefined) return answer(await run());
      const within = await publishWithin(ctx, scope, surface.publishBy, run, surface.deadline);
      if (within.kind === 'done') return answer(within.result);
      const poll = pollPath(scope, within.publishId);
      return {
        status: 'accepted' as const,
        outcome: 'accepted' as const,
        published: true,
        ok: false,
        publishId: within.publishId,
        poll,
        message: `publish #${within.publishId} is committing and goes on past the request's bound (seeds, then the L3 probes): follow it with get_publish (publishId ${within.publishId}) or GET ${poll}`,
        errors: 0,
        warnings: 0,
        issues: [],
        schema: tenantSchema(tenant),
        session: null,
      };
    },
  }),
  get_publish: defineTool({
    name: 'get_publish',
    title: 'Follow a publish',
    description: 'Follow a publish by publishId: running, succeeded (result.ok: no issue left), failed (rolled back) or interrupted.',
    input: z.object({ ...Pkg, publishId: z.number().int().min(1) }),
    output: PublishStatusSchema,
    readOnly: true,
    run: async (ctx, tenant, i, surface) => {
      const s = await publishStatus(ctx, scopeOf(tenant, i), i.publishId);
      const { result, ...rest } = s;
      return { ...rest, ...(result ? { result: answerPublish(result, {}, surface.detail) } : {}) };
    },
  }),
  build_health: defineTool({
    name: 'build_health',
    title: 'Build-health card',
    description: 'The build-health card (structure, renders, rows, widgets, warnings; issue ids by artifact) and, given a session, its rounds.',
    input: z.object({ ...Pkg, session: z.string().min(1).max(100).optional() }),
    output: HealthSchema,
    readOnly: true,
    run: async (ctx, tenant, i) => {
      const { card, issues, draftVersion } = await healthCard(ctx, tenant, i);
      const ids = issueIds(issues);
      return { card: cardView(card, idLookup(issues, ids)), issues: issues.map((x, k) => fullIssue(x, ids[k]!, draftVersion)), line: formatCardLine(card) };
    },
  }),
  create_session: defineTool({
    name: 'create_session',
    title: 'Start a build session',
    description:
      "Start a bounded build session towards a goal; pass its id to verify_build and publish. The tenant's policy caps the bounds (capped says which) and counts a package's sessions in a window.",
    input: SessionInput.extend(Pkg),
    output: SessionSchema,
    readOnly: false,
    run: (ctx, tenant, i, surface) => createSession(ctx, { ...scopeOf(tenant, i), goal: i.goal, bounds: i.bounds, serverPolicy: surface.policy }),
  }),
  get_session: defineTool({
    name: 'get_session',
    title: 'Read a session',
    description: 'A build session: status, stop reason, rounds, usage, next step.',
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
    description: "A session's rounds: issues, what moved, auto-fixes, the decision.",
    input: z.object(SessionId),
    output: RoundListSchema,
    readOnly: true,
    run: async (ctx, tenant, i) => {
      await packageSession(ctx, scopeOf(tenant, i), i.id);
      const rounds = await listRounds(ctx, { tenant, id: i.id });
      // Each round's issues with their ids (no patch ids: those are bound to drafts as they are now).
      return { rounds: rounds.map((r) => ({ ...r, issues: ((ids) => r.issues.map((x, k) => fullIssue(x, ids[k]!, undefined)))(issueIds(r.issues)) })) };
    },
  }),
  get_transcript: defineTool({
    name: 'get_transcript',
    title: "A session's transcript",
    description: 'Every turn of a build session: messages, tool calls with arguments and a bounded result, tokens, time (secrets redacted).',
    input: z.object(SessionId),
    output: TranscriptSchema,
    readOnly: true,
    // For people and dashboards debugging a build, not for the agent's own loop.
    mcp: false,
    run: async (ctx, tenant, i) => {
      await packageSession(ctx, scopeOf(tenant, i), i.id);
      return { transcript: await readTranscript(ctx, { tenant, id: i.id }) };
    },
  }),
  review_intent: defineTool({
    name: 'review_intent',
    title: 'Intent review',
    description:
      'A judge model reviews the build (published ⊕ drafts) against the goal; findings are intent_mismatch warnings. With a session, stored with its round.',
    input: ReviewInput.extend(Pkg),
    output: ReviewSchema,
    readOnly: false,
    run: async (ctx, tenant, i, surface) => {
      if (!surface.judge)
        throw new ApiError(
          'invalid_request',
          'review_intent needs a judge model: the server has none configured (OPENAI_BASE_URL or OPENAI_API_KEY, and BVL_JUDGE_MODEL or BVL_MODEL)',
        );
      await requirePackage(ctx, scopeOf(tenant, i));
      const r = await reviewPackage(ctx, scopeOf(tenant, i), { judge: surface.judge, goal: i.goal, session: i.session });
      const ids = issueIds(r.issues);
      return { ...r, issues: r.issues.map((x, k) => fullIssue(x, ids[k]!, undefined)) };
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
    case 'apply_fix':
      return { outcome: 'applied' };
    case 'stage_draft':
    case 'stage_drafts':
    case 'retire_artifact':
      return { outcome: o.errors ? 'staged_with_errors' : 'staged' };
    default:
      return { outcome: 'ok' };
  }
}
