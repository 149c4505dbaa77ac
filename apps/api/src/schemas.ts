// The API's shapes, declared once: route validation, the OpenAPI document and the MCP tools'
// input/output schemas are all generated from these. Output shapes are open objects
// (`additionalProperties: true`): a field added later is not a breaking change for a client that
// validates (MCP clients do). Every generated schema is typed throughout — no `{}` schema, no `type`
// array: the official MCP inspector's --strict and Redocly's linter check both documents in the
// suite (test/conformance.test.ts). Descriptions are zod's own (`.describe()`), so both carry them.
import { BuildIssueSchema, JsonValueSchema } from '@bvl/build-issue';
import { ARTIFACT_TYPES } from '@bvl/metadata';
import { packageProblem, tenantProblem } from '@bvl/platform';
import { SessionBoundsSchema, STOP_REASONS } from '@bvl/verify-build';
import { z } from '@hono/zod-openapi';
import { ERROR_STATUS, type ErrorCode } from './to-error-response.ts';

/** Longest artifact name accepted in a path. */
export const MAX_NAME = 512;

/**
 * An object schema as an open output: `additionalProperties: true` in the OpenAPI document and the
 * MCP tools' JSON Schema alike (zod's looseObject alone says `{}` there, an untyped schema), with
 * the meta it already had (its description) kept. Apply it last: `.extend()` and `.openapi()` make
 * a new schema without it.
 */
export function open<T extends z.ZodObject>(schema: T): T {
  return schema.meta({ ...z.globalRegistry.get(schema), additionalProperties: true }) as T;
}

/** A loose object with `additionalProperties: true` (see {@link open}). */
export const outputObject = <S extends z.ZodRawShape>(shape: S) => open(z.looseObject(shape));

/** A loose object named as an OpenAPI component, with its description in both documents. */
const component = <S extends z.ZodRawShape>(name: string, shape: S, description?: string) =>
  open(description ? z.looseObject(shape).openapi(name).describe(description) : z.looseObject(shape).openapi(name));

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

export const ArtifactTypeSchema = z.enum(ARTIFACT_TYPES).describe('The artifact type, as in the stack format (`seed` is an entry of `data`).');
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
export const ArtifactBodySchema = z.record(z.string(), z.unknown()).openapi('ArtifactBody').meta({
  description: 'One artifact exactly as it appears in an ObjectStack stack (an entry of objects, views, dashboards, datasets, apps, data, reports or pages).',
  additionalProperties: true,
});

export const UsageSchema = z
  .strictObject({
    tokensIn: z.number().int().min(0).optional(),
    tokensOut: z.number().int().min(0).optional(),
    costUsd: z.number().min(0).optional(),
  })
  .openapi('Usage')
  .describe('Tokens and cost the agent spent since its previous call; counted against the session budget.');

export const VerifyInput = z
  .strictObject({
    session: z.string().min(1).max(100).optional().describe('A build session to record the round in.'),
    usage: UsageSchema.optional(),
    fix: z.boolean().optional().describe('Apply safe patches as drafts first (default: true in a session).'),
  })
  .openapi('VerifyInput');

export const PublishInput = z
  .strictObject({
    session: z.string().min(1).max(100).optional(),
    usage: UsageSchema.optional(),
    dropData: z.boolean().optional().describe("Let tombstones drop a retired object's table / a retired seed's rows."),
    env: z.string().min(1).max(64).optional().describe('Seeds whose env list lacks this are not applied (default dev).'),
  })
  .openapi('PublishInput');

export const SessionInput = z
  .strictObject({ goal: z.string().min(1).max(20_000), bounds: SessionBoundsSchema.partial().optional() })
  .openapi('SessionInput')
  .describe('A build session towards a goal; bounds default to 2 repair rounds.');

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
/** A point in time, as ISO 8601 text. */
const Instant = () => z.string().describe('ISO 8601 date and time.');
export const CheckedSchema = component(
  'Checked',
  {
    objects: z.number(),
    views: z.number(),
    dashboards: z.number(),
    widgets: z.number(),
    datasets: z.number(),
    apps: z.number(),
    seeds: z.number(),
    schemas: z.number().optional(),
    compiledDatasets: z.number().optional(),
  },
  'What was checked, per artifact kind.',
);

const Layer = outputObject({ status: z.enum(['pass', 'fail', 'warn', 'skip']), errors: z.number(), warnings: z.number(), label: z.string() });
const CardRound = outputObject({
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
export const CardSchema = component(
  'BuildCard',
  {
    ok: z.boolean(),
    publishable: z.boolean(),
    published: z.boolean(),
    layers: outputObject({ structure: Layer, renders: Layer, rows: Layer, widgets: Layer }),
    warnings: z.number(),
    checked: CheckedSchema,
    byArtifact: z.array(outputObject({ artifact: Ref, issues: z.array(IssueSchema) })),
    session: outputObject({ id: z.string(), goal: z.string(), status: z.string(), stopReason: z.string().optional(), rounds: z.array(CardRound) }).optional(),
  },
  'The build-health card: the layer verdicts, the issues by artifact, the session rounds.',
);

const NextStep = z.enum(['repair', 'publish', 'stop']);
export const SessionSchema = component('Session', {
  id: z.string(),
  tenant: z.string(),
  package: z.string(),
  goal: z.string(),
  status: z.enum(['open', 'stopped']),
  stopReason: z.enum(STOP_REASONS).nullable(),
  bounds: outputObject({ maxRounds: z.number(), noProgressRounds: z.number() }),
  rounds: z.number(),
  repairRounds: z.number(),
  next: NextStep,
  usage: outputObject({ tokensIn: z.number(), tokensOut: z.number(), costUsd: z.number(), elapsedMs: z.number() }),
  createdAt: Instant(),
  publishedAt: Instant().nullable(),
});

export const FixChangeSchema = component('FixChange', {
  artifact: Ref,
  path: z.string(),
  old: JsonValueSchema.optional(),
  new: JsonValueSchema.optional(),
  code: z.string(),
});

export const RoundSchema = component('Round', {
  round: z.number(),
  kind: z.enum(['verify', 'publish']),
  draftHash: z.string(),
  errors: z.array(z.string()),
  warnings: z.array(z.string()),
  diff: outputObject({ fixed: z.array(z.string()), persisting: z.array(z.string()), new: z.array(z.string()), reappeared: z.array(z.string()) }),
  issues: z.array(IssueSchema),
  fixes: z.array(FixChangeSchema),
  stopReason: z.enum(STOP_REASONS).nullable(),
  next: NextStep,
  why: z.string(),
  durationMs: z.number(),
  createdAt: Instant(),
});

export const VerifyResultSchema = component('VerifyResult', {
  ok: z.boolean().describe('No error in any layer (L1, L2, and the latest L3 of the published package).'),
  publishable: z.boolean().describe('No L1/L2 error: the gate would let a publish through.'),
  issues: z.array(IssueSchema),
  checked: CheckedSchema,
  card: CardSchema,
  session: SessionSchema.nullable(),
  fixes: z.array(FixChangeSchema),
  unchanged: z.boolean().describe('The draft set had not changed since the session’s last round: no round was spent.'),
});

export const PublishResultSchema = component('PublishResult', {
  outcome: z.enum(['published', 'refused', 'nothing_to_publish', 'failed']),
  published: z.boolean(),
  ok: z.boolean(),
  issues: z.array(IssueSchema),
  checked: CheckedSchema.optional(),
  items: z.array(outputObject({ type: z.string(), name: z.string(), version: z.number() })).optional(),
  retired: z.array(outputObject({ type: z.string(), name: z.string() })).optional(),
  seedApplied: outputObject({ success: z.boolean(), inserted: z.number(), updated: z.number(), skipped: z.number() }).optional(),
  probes: outputObject({ rows: z.number() }).optional(),
  schema: z.string(),
  error: z.string().optional(),
  card: CardSchema.optional(),
  session: SessionSchema.nullable(),
});

export const WriteResultSchema = component('WriteResult', {
  staged: z.number().describe('Draft rows written (a view container stages one per view).'),
  artifacts: z.array(Ref),
  issues: z.array(IssueSchema).describe('The L1 issues this write caused: present now, absent before it.'),
  resolved: z.number().describe('L1 issues present before the write and gone after it.'),
  errors: z.number().describe('L1 errors of the package overlay after the write.'),
  warnings: z.number(),
});

const draftSummary = { type: z.string(), name: z.string(), contentHash: z.string(), updatedAt: Instant(), tombstone: z.boolean() };
export const DraftSummarySchema = outputObject(draftSummary);
export const DraftListSchema = component('DraftList', { drafts: z.array(DraftSummarySchema) });
export const DraftSchema = component('Draft', {
  ...draftSummary,
  body: JsonValueSchema.describe('The stored body (a view: its config); null for a tombstone.'),
  view: outputObject({
    object: z.string().optional(),
    key: z.string().optional(),
    viewKind: z.string().optional(),
    container: z.string().optional(),
  }).optional(),
});
export const DiscardResultSchema = component('DiscardResult', { discarded: z.number() });
export const SessionListSchema = component('SessionList', { sessions: z.array(SessionSchema) });
export const RoundListSchema = component('RoundList', { rounds: z.array(RoundSchema) });
export const HealthSchema = component('Health', { card: CardSchema, line: z.string().describe('The card as one line of text.') });
export const HealthzSchema = component('Healthz', {
  ok: z.boolean(),
  database: z.enum(['up', 'down']),
  engine: z.string(),
  version: z.string(),
  uptimeSeconds: z.number(),
});

export const ErrorSchema = z
  .object({
    error: z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]),
    message: z.string(),
    problems: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    suggestions: z.array(z.string()).optional().describe('Did-you-mean candidates, best first (an unknown package: the closest of the tenant’s packages).'),
  })
  .openapi('Error');
