// The API's shapes, declared once: route validation, the OpenAPI document and the MCP tools'
// input/output schemas are all generated from these. Output shapes are open objects
// (`additionalProperties: true`): a field added later is not a breaking change for a client that
// validates (MCP clients do). Every generated schema is typed throughout — no `{}` schema, no `type`
// array: the official MCP inspector's --strict and Redocly's linter check both documents in the
// suite (test/conformance.test.ts). Descriptions are zod's own (`.describe()`), so both carry them.
import { SEVERITIES } from '@bvl/build-issue';
import { ARTIFACT_TYPES } from '@bvl/metadata';
import { packageProblem, tenantProblem } from '@bvl/platform';
import { MAX_PATCHES, PolicyBoundsSchema, SessionBoundsSchema, STOP_REASONS, TenantPolicySchema, ViewOptionsSchema } from '@bvl/verify-build';
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

export const ArtifactTypeSchema = z.enum(ARTIFACT_TYPES).describe('seed: an entry of data.');
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
export const ArtifactBodySchema = z.looseObject({}).openapi('ArtifactBody').meta({
  description: 'One artifact as in an ObjectStack stack.',
  additionalProperties: true,
});

export const UsageSchema = z
  .strictObject({
    tokensIn: z.number().min(0).optional(),
    tokensOut: z.number().min(0).optional(),
    costUsd: z.number().min(0).optional(),
  })
  .openapi('Usage')
  .describe('Spent since your previous call (counts against the budget).');

const View = ViewOptionsSchema.shape;

export const VerifyInput = z
  .strictObject({
    session: z.string().min(1).max(100).optional().describe('A build session to record the round in.'),
    usage: UsageSchema.optional(),
    fix: z.boolean().optional().describe('Apply safe patches as drafts first (default: true in a session).'),
    ...View,
  })
  .openapi('VerifyInput');

export const PublishInput = z
  .strictObject({
    session: z.string().min(1).max(100).optional(),
    usage: UsageSchema.optional(),
    dropData: z.boolean().optional().describe("Let tombstones drop a retired object's table / a retired seed's rows."),
    allowDataChange: z.boolean().optional().describe('Let a republish change or lose rows already there (refused otherwise).'),
    env: z.string().min(1).max(64).optional().describe('Seeds whose env list lacks this are not applied (default dev).'),
    detail: View.detail,
  })
  .openapi('PublishInput');

/** Artifacts one stage_drafts call takes at most (each within the body limit, as one stage_draft). */
export const MAX_STAGE_ARTIFACTS = 1000;

export const StageDraftsInput = z
  .strictObject({
    artifacts: z
      .array(z.strictObject({ type: ArtifactTypeSchema, name: z.string().min(1).max(MAX_NAME), body: ArtifactBodySchema }))
      .min(1)
      .max(MAX_STAGE_ARTIFACTS)
      .describe('The artifacts, each as stage_draft takes one.'),
    detail: View.detail,
    limit: View.limit,
  })
  .openapi('StageDraftsInput');

export const ApplyFixInput = z
  .strictObject({
    patches: z.array(z.string().min(1).max(100)).min(1).max(MAX_PATCHES).describe('patchId values of the latest answer.'),
    draftVersion: z.string().min(1).max(64).optional().describe('Of that answer: refused if stale.'),
    detail: View.detail,
    limit: View.limit,
  })
  .openapi('ApplyFixInput');

export const SessionInput = z
  .strictObject({ goal: z.string().min(1).max(20_000), bounds: SessionBoundsSchema.partial().optional() })
  .openapi('SessionInput')
  .describe('A build session towards a goal; bounds default to 2 repair rounds.');

export const PolicyInput = z
  .strictObject(TenantPolicySchema.shape)
  .openapi('PolicyInput')
  .describe(
    "A tenant's server policy; what it leaves out comes from the server's. requireSession: verify_build and publish need a session. defaults / maximums: bounds (maxRounds, budgetMs, budgetTokens, budgetUsd, idleMs) a session gets when it asks none / at most. windowMs: the rounds and spend of a package's sessions opened within it count against one maximum.",
  );

export const PolicySchema = component(
  'Policy',
  {
    tenant: z.string(),
    policy: TenantPolicySchema,
    effective: z.strictObject({
      requireSession: z.boolean(),
      defaults: PolicyBoundsSchema,
      maximums: PolicyBoundsSchema,
      windowMs: z.number().int(),
    }),
    version: z.number().int(),
    updatedAt: z.string().nullable(),
  },
  "The tenant's policy as set, and what is in force (its fields over the server's default policy).",
);

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
// Compact on purpose: MCP clients send every tool's outputSchema to the model (tools/list is read
// on every turn), so each shape appears once per tool — named schemas become `$defs` entries the
// rest point at with `$ref` — and nested objects stay open rather than spelled out twice.

/**
 * A named output schema: an OpenAPI component of that name and a `$defs` entry (zod's `id`) in an
 * MCP tool's JSON Schema, so a shape used twice in one tool is declared once.
 */
const named = <T extends z.ZodType>(name: string, schema: T, description?: string): T =>
  schema.openapi(name).meta({ ...z.globalRegistry.get(schema), ...(description ? { description } : {}), id: name }) as T;

/** A tool's whole output: an OpenAPI component, but no `$defs` entry (an MCP outputSchema's root must be an object, not a `$ref`). */
const root = <T extends z.ZodType>(name: string, schema: T): T => schema.openapi(name).meta({ ...z.globalRegistry.get(schema) }) as T;

const Ref = named('Ref', open(z.looseObject({ type: z.string(), name: z.string() })));
/** A point in time, as ISO 8601 text. */
const Instant = () => z.string().describe('ISO 8601 date and time.');
// Counts are plain numbers: `.int().min(0)` would spell out the safe-integer bounds in every schema.
const count = z.number();
/** An open object whose fields are described in words: what a model needs, at a fraction of the schema. */
export const openObject = (description: string) => open(z.looseObject({})).describe(description);

export const CheckedSchema = named('Checked', openObject('What was checked: counts per artifact kind (objects, views, dashboards, widgets, datasets, …).'));

/**
 * An issue in an answer: the compact form (summary) — a BuildIssue's identifying fields, one
 * message, its fix, the id of its patch — or every BuildIssue field (full: also path, ref,
 * suggestions, patch, location, draft). Each issue appears once per answer; the card and the
 * round refer to it by `id`.
 */
export const IssueSchema = named(
  'Issue',
  open(
    z.looseObject({
      id: z.string(),
      severity: z.enum(SEVERITIES),
      code: z.string(),
      // Inline, not the Ref definition: most tools use it only here, and a $ref costs more than it saves.
      artifact: open(z.looseObject({ type: z.string(), name: z.string() })),
      message: z.string(),
      patchId: z.string().optional(),
    }),
  ),
  'Also layer, member, path, fix, fixSafety, masks, at; full: every BuildIssue field.',
);
const Issues = z.array(IssueSchema);

const More = openObject('Left out: errors, warnings, cursor, next.');
/** What every answer with issues carries: the issues once, what was left out, and how to page. */
const pageFields = {
  errors: count,
  warnings: count,
  issues: Issues,
  more: More.optional(),
};
/** A summary's index of the errors it does not list (verify_build). */
const Unlisted = z.array(openObject('{code, count, artifacts}')).describe('Errors not listed.');

export const CardSchema = openObject('The build-health card; byArtifact lists issue ids.');

const NextStep = z.enum(['repair', 'publish', 'stop']);
export const SessionSchema = root('Session', open(z.looseObject({ id: z.string(), status: z.enum(['open', 'stopped']), next: NextStep }))).describe(
  `Also stopReason (${STOP_REASONS.join('|')}), tenant, package, goal, bounds, rounds, repairRounds, usage, createdAt, publishedAt, updatedAt; on create, capped: the bounds the tenant's policy capped.`,
);
/** A session as answers carry it: where it stands and what it has left. */
export const SessionBriefSchema = openObject('{id, status, stopReason, next, rounds, repairRounds, remaining {repairRounds, tokens?, usd?, ms?}, usage}');

export const FixChangeSchema = openObject('{artifact, path, old, new, code}: a value changed.');

export const RoundSchema = named(
  'Round',
  open(
    z.looseObject({
      round: count,
      kind: z.enum(['verify', 'publish']),
      issues: Issues,
      stopReason: z.enum(STOP_REASONS).nullable(),
      next: NextStep,
      why: z.string(),
    }),
  ),
  'Also draftHash, fixes, errors and warnings (fingerprints), diff {fixed, persisting, new, reappeared, masked}, usage, durationMs.',
);

export const VerifyResultSchema = root(
  'VerifyAnswer',
  open(
    z.looseObject({
      ok: z.boolean(),
      publishable: z.boolean().describe('No L1/L2 error.'),
      next: NextStep,
      why: z.string().optional(),
      draftVersion: z.string().describe('Hash of the graded draft set.'),
      unchanged: z.boolean(),
      line: z.string().describe('The card as one line.'),
      ...pageFields,
      unlisted: Unlisted.optional(),
      matching: openObject('Issues matching the filters.').optional(),
      fixes: z.array(FixChangeSchema).describe('What the safe fixer changed first.'),
      round: openObject('This round: fixed, persisting, new, reappeared, masked [{id, maskedBy}].').optional(),
      session: SessionBriefSchema.nullable(),
      card: CardSchema.optional(),
    }),
  ),
);

export const PublishResultSchema = root(
  'PublishAnswer',
  open(
    z.looseObject({
      outcome: z
        .enum(['published', 'refused', 'nothing_to_publish', 'failed', 'accepted'])
        .describe('accepted: committing past the request bound; follow it with get_publish.'),
      publishId: count.optional(),
      published: z.boolean(),
      ok: z.boolean(),
      ...pageFields,
      line: z.string().optional(),
      schema: z.string(),
      error: z.string().optional(),
      session: SessionBriefSchema.nullable(),
    }),
  ),
);

export const PublishStatusSchema = root(
  'PublishStatus',
  open(
    z.looseObject({
      status: z
        .enum(['running', 'succeeded', 'failed', 'interrupted'])
        .describe('interrupted: its process stopped before the seeds or probes finished; publish again.'),
      publishId: count,
      stage: z.enum(['seeding', 'probing', 'done']).optional(),
      message: z.string(),
      result: openObject('The publish answer (as publish gives it), once known.').optional(),
    }),
  ),
);

export const PublishIdParams = ScopeParams.extend({
  id: z.coerce
    .number()
    .int()
    .min(1)
    .openapi({ param: { name: 'id', in: 'path' }, type: 'integer', description: 'The publishId an accepted publish answered.' }),
});

export const WriteResultSchema = root(
  'WriteAnswer',
  open(
    z.looseObject({
      staged: count,
      artifacts: z.array(Ref),
      draftVersion: z.string(),
      ...pageFields,
      // Described, not the Issue definition again: three write tools share this answer, and tools/list has a token budget.
      issues: z
        .array(openObject('An issue as verify_build gives it: id, severity, code, artifact, message, patchId.'))
        .describe('The L1 issues the write caused.'),
      resolved: count.describe('L1 issues it made go away.'),
    }),
  ),
);

export const ApplyFixResultSchema = root(
  'ApplyFixAnswer',
  open(
    z.looseObject({
      applied: z.array(open(z.looseObject({ patchId: z.string(), issue: z.string() }))),
      changes: z.array(FixChangeSchema),
      draftVersion: z.string().describe('The drafts after the patches.'),
      fixed: z.array(z.string()).describe('Ids of the issues gone.'),
      ...pageFields,
      issues: Issues.describe('Issues the patches revealed.'),
    }),
  ),
);

const draftSummary = { type: z.string(), name: z.string(), contentHash: z.string(), updatedAt: Instant(), tombstone: z.boolean() };
export const DraftSummarySchema = outputObject(draftSummary);
export const DraftListSchema = component('DraftList', { drafts: z.array(DraftSummarySchema) });
export const DraftSchema = component('Draft', {
  ...draftSummary,
  body: open(z.looseObject({})).nullable().describe('The stored body (a view: its config); null for a tombstone.'),
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
/** One turn of a build's transcript. */
const TurnSchema = named(
  'Turn',
  open(
    z.looseObject({
      turn: count,
      role: z.enum(['system', 'user', 'assistant']),
      content: z.string().nullable(),
      toolCalls: z.array(openObject('{id, name, arguments, result}')),
    }),
  ).describe('Also stage (build|review), tokensIn, tokensOut, tokensCached, tokensReasoning, retries, ms, condensed, createdAt.'),
);
export const TranscriptSchema = component('Transcript', { transcript: z.array(TurnSchema) });
export const ReviewInput = z
  .strictObject({ goal: z.string().min(1).max(20_000).optional(), session: z.string().min(1).max(100).optional() })
  .openapi('ReviewInput')
  .describe("The goal to judge against (default the session's).");
export const ReviewSchema = component(
  'Review',
  { verdict: z.enum(['pass', 'mismatch', 'failed']) },
  'Also judge, goal, issues (intent_mismatch warnings), usage, round.',
);
export const HealthSchema = component('Health', {
  card: CardSchema,
  issues: Issues.describe('Every issue of the card, once.'),
  line: z.string().describe('The card as one line of text.'),
});
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
