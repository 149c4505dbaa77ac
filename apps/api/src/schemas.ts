// The API's shapes, declared once: route validation, the OpenAPI document and the MCP tools'
// input/output schemas are all generated from these. Output shapes are loose objects: a field added
// later is not a breaking change for a client that validates (MCP clients do).
import { BuildIssueSchema } from '@bvl/build-issue';
import { ARTIFACT_TYPES } from '@bvl/metadata';
import { packageProblem, tenantProblem } from '@bvl/platform';
import { SessionBoundsSchema, STOP_REASONS } from '@bvl/verify-build';
import { z } from '@hono/zod-openapi';

/** Longest artifact name accepted in a path. */
export const MAX_NAME = 512;

const refineWith = (problem: (v: unknown) => string | undefined, what: string) => (v: string, ctx: z.RefinementCtx) => {
  const p = problem(v);
  if (p) ctx.addIssue({ code: 'custom', message: `${what} ${p}` });
};

export const TenantParam = z
  .string()
  .superRefine(refineWith(tenantProblem, 'tenant'))
  .openapi({ param: { name: 'tenant', in: 'path' }, example: 'demo' });
export const PackageParam = z
  .string()
  .superRefine(refineWith(packageProblem, 'package'))
  .openapi({ param: { name: 'package', in: 'path' }, example: 'expense' });
export const ScopeParams = z.object({ tenant: TenantParam, package: PackageParam });

export const ArtifactTypeSchema = z.enum(ARTIFACT_TYPES).openapi({ description: 'The artifact type, as in the stack format (`seed` is an entry of `data`).' });
export const ArtifactParams = ScopeParams.extend({
  type: ArtifactTypeSchema.openapi({ param: { name: 'type', in: 'path' }, example: 'dashboard' }),
  name: z
    .string()
    .min(1)
    .max(MAX_NAME)
    .openapi({
      param: { name: 'name', in: 'path' },
      example: 'exp_spending',
      description: 'The artifact name: a view container stages as `<object>.<key>` views, a seed is named by its object.',
    }),
});
export const SessionParams = ScopeParams.extend({
  id: z
    .string()
    .min(1)
    .max(100)
    .openapi({ param: { name: 'id', in: 'path' } }),
});

/** The artifact body as in the stack format: one entry of `objects`, `views`, `dashboards`, … (a view container, a view item). */
export const ArtifactBodySchema = z.record(z.string(), z.unknown()).openapi('ArtifactBody', {
  description: 'One artifact exactly as it appears in an ObjectStack stack (an entry of objects, views, dashboards, datasets, apps, data, reports or pages).',
});

export const UsageSchema = z
  .strictObject({
    tokensIn: z.number().int().min(0).optional(),
    tokensOut: z.number().int().min(0).optional(),
    costUsd: z.number().min(0).optional(),
  })
  .openapi('Usage', { description: 'Tokens and cost the agent spent since its previous call; counted against the session budget.' });

export const VerifyInput = z
  .strictObject({
    session: z.string().min(1).max(100).optional().openapi({ description: 'A build session to record the round in.' }),
    usage: UsageSchema.optional(),
    fix: z.boolean().optional().openapi({ description: 'Apply safe patches as drafts first (default: true in a session).' }),
  })
  .openapi('VerifyInput');

export const PublishInput = z
  .strictObject({
    session: z.string().min(1).max(100).optional(),
    usage: UsageSchema.optional(),
    dropData: z.boolean().optional().openapi({ description: "Let tombstones drop a retired object's table / a retired seed's rows." }),
    env: z.string().min(1).max(64).optional().openapi({ description: 'Seeds whose env list lacks this are not applied (default dev).' }),
  })
  .openapi('PublishInput');

export const SessionInput = z
  .strictObject({ goal: z.string().min(1).max(20_000), bounds: SessionBoundsSchema.partial().optional() })
  .openapi('SessionInput', { description: 'A build session towards a goal; bounds default to 2 repair rounds.' });

export const HealthQuery = z.object({
  session: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .openapi({ param: { name: 'session', in: 'query' } }),
});
export const ListSessionsQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(500)
    .optional()
    .openapi({ param: { name: 'limit', in: 'query' } }),
});

// ---- outputs

// Made by packages/build-issue before zod was extended with .openapi(): named through zod's own metadata.
export const IssueSchema = BuildIssueSchema.meta({ id: 'BuildIssue' });
const Ref = z.object({ type: z.string(), name: z.string() });
export const CheckedSchema = z
  .looseObject({
    objects: z.number(),
    views: z.number(),
    dashboards: z.number(),
    widgets: z.number(),
    datasets: z.number(),
    apps: z.number(),
    seeds: z.number(),
    schemas: z.number().optional(),
    compiledDatasets: z.number().optional(),
  })
  .openapi('Checked', { description: 'What was checked, per artifact kind.' });

const Layer = z.looseObject({ status: z.enum(['pass', 'fail', 'warn', 'skip']), errors: z.number(), warnings: z.number(), label: z.string() });
const CardRound = z.looseObject({
  round: z.number(),
  kind: z.enum(['verify', 'publish']),
  errors: z.number(),
  warnings: z.number(),
  fixed: z.number(),
  new: z.number(),
  reappeared: z.number(),
  autoFixed: z.number(),
  stopReason: z.string().optional(),
});
export const CardSchema = z
  .looseObject({
    ok: z.boolean(),
    publishable: z.boolean(),
    published: z.boolean(),
    layers: z.looseObject({ structure: Layer, renders: Layer, rows: Layer, widgets: Layer }),
    warnings: z.number(),
    checked: CheckedSchema,
    byArtifact: z.array(z.looseObject({ artifact: Ref, issues: z.array(IssueSchema) })),
    session: z.looseObject({ id: z.string(), goal: z.string(), status: z.string(), stopReason: z.string().optional(), rounds: z.array(CardRound) }).optional(),
  })
  .openapi('BuildCard', { description: 'The build-health card: the layer verdicts, the issues by artifact, the session rounds.' });

const NextStep = z.enum(['repair', 'publish', 'stop']);
export const SessionSchema = z
  .looseObject({
    id: z.string(),
    tenant: z.string(),
    package: z.string(),
    goal: z.string(),
    status: z.enum(['open', 'stopped']),
    stopReason: z.enum(STOP_REASONS).nullable(),
    bounds: z.looseObject({ maxRounds: z.number(), noProgressRounds: z.number() }),
    rounds: z.number(),
    repairRounds: z.number(),
    next: NextStep,
    usage: z.looseObject({ tokensIn: z.number(), tokensOut: z.number(), costUsd: z.number(), elapsedMs: z.number() }),
    createdAt: z.string(),
    publishedAt: z.string().nullable(),
  })
  .openapi('Session');

export const FixChangeSchema = z
  .looseObject({ artifact: Ref, path: z.string(), old: z.unknown().optional(), new: z.unknown().optional(), code: z.string() })
  .openapi('FixChange');

export const RoundSchema = z
  .looseObject({
    round: z.number(),
    kind: z.enum(['verify', 'publish']),
    draftHash: z.string(),
    errors: z.array(z.string()),
    warnings: z.array(z.string()),
    diff: z.looseObject({ fixed: z.array(z.string()), persisting: z.array(z.string()), new: z.array(z.string()), reappeared: z.array(z.string()) }),
    issues: z.array(IssueSchema),
    fixes: z.array(FixChangeSchema),
    stopReason: z.enum(STOP_REASONS).nullable(),
    next: NextStep,
    why: z.string(),
    durationMs: z.number(),
    createdAt: z.string(),
  })
  .openapi('Round');

export const VerifyResultSchema = z
  .looseObject({
    ok: z.boolean().openapi({ description: 'No error in any layer (L1, L2, and the latest L3 of the published package).' }),
    publishable: z.boolean().openapi({ description: 'No L1/L2 error: the gate would let a publish through.' }),
    issues: z.array(IssueSchema),
    checked: CheckedSchema,
    card: CardSchema,
    session: SessionSchema.nullable(),
    fixes: z.array(FixChangeSchema),
    unchanged: z.boolean().openapi({ description: 'The draft set had not changed since the session’s last round: no round was spent.' }),
  })
  .openapi('VerifyResult');

export const PublishResultSchema = z
  .looseObject({
    outcome: z.enum(['published', 'refused', 'nothing_to_publish', 'failed']),
    published: z.boolean(),
    ok: z.boolean(),
    issues: z.array(IssueSchema),
    checked: CheckedSchema.optional(),
    items: z.array(z.looseObject({ type: z.string(), name: z.string(), version: z.number() })).optional(),
    retired: z.array(z.looseObject({ type: z.string(), name: z.string() })).optional(),
    seedApplied: z.looseObject({ success: z.boolean(), inserted: z.number(), updated: z.number(), skipped: z.number() }).optional(),
    probes: z.looseObject({ rows: z.number() }).optional(),
    schema: z.string(),
    error: z.string().optional(),
    card: CardSchema.optional(),
    session: SessionSchema.nullable(),
  })
  .openapi('PublishResult');

export const WriteResultSchema = z
  .looseObject({
    staged: z.number().openapi({ description: 'Draft rows written (a view container stages one per view).' }),
    artifacts: z.array(Ref),
    issues: z.array(IssueSchema).openapi({ description: 'The L1 issues this write caused: present now, absent before it.' }),
    resolved: z.number().openapi({ description: 'L1 issues present before the write and gone after it.' }),
    errors: z.number().openapi({ description: 'L1 errors of the package overlay after the write.' }),
    warnings: z.number(),
  })
  .openapi('WriteResult');

export const DraftSummarySchema = z.looseObject({ type: z.string(), name: z.string(), contentHash: z.string(), updatedAt: z.string(), tombstone: z.boolean() });
export const DraftListSchema = z.looseObject({ drafts: z.array(DraftSummarySchema) }).openapi('DraftList');
export const DraftSchema = DraftSummarySchema.extend({
  body: z.unknown().openapi({ description: 'The stored body (a view: its config).' }),
  view: z
    .looseObject({ object: z.string().optional(), key: z.string().optional(), viewKind: z.string().optional(), container: z.string().optional() })
    .optional(),
}).openapi('Draft');
export const DiscardResultSchema = z.looseObject({ discarded: z.number() }).openapi('DiscardResult');
export const SessionListSchema = z.looseObject({ sessions: z.array(SessionSchema) }).openapi('SessionList');
export const RoundListSchema = z.looseObject({ rounds: z.array(RoundSchema) }).openapi('RoundList');
export const HealthSchema = z.looseObject({ card: CardSchema, line: z.string().openapi({ description: 'The card as one line of text.' }) }).openapi('Health');
export const HealthzSchema = z
  .looseObject({ ok: z.boolean(), database: z.enum(['up', 'down']), engine: z.string(), version: z.string(), uptimeSeconds: z.number() })
  .openapi('Healthz');

export const ErrorSchema = z
  .object({
    error: z.enum(['invalid_request', 'unauthorized', 'not_found', 'session_stopped', 'payload_too_large', 'database_unavailable', 'internal']),
    message: z.string(),
    problems: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .openapi('Error');
