import { z } from 'zod';

/** The four layers that emit issues (design.md). */
export const LAYERS = ['graph', 'render', 'runtime', 'intent'] as const;
export type Layer = (typeof LAYERS)[number];

/** Issue severities; warnings never block publish. */
export const SEVERITIES = ['error', 'warning'] as const;
export type Severity = (typeof SEVERITIES)[number];

/**
 * Any JSON value. Validates like `z.unknown()`, but its JSON Schema names the six JSON types
 * (`anyOf`, one `type` each) instead of the empty schema `{}`, which schema linters and model
 * providers flag as untyped; arrays and objects are left open.
 */
export const JsonValueSchema = z.unknown().meta({
  anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }, { type: 'array' }, { type: 'object', additionalProperties: true }],
});

/** One RFC 6902 JSON Patch operation. */
export const JsonPatchOpSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('add'), path: z.string(), value: JsonValueSchema }),
  z.object({ op: z.literal('replace'), path: z.string(), value: JsonValueSchema }),
  z.object({ op: z.literal('remove'), path: z.string() }),
  z.object({ op: z.literal('test'), path: z.string(), value: JsonValueSchema }),
  z.object({ op: z.literal('move'), from: z.string(), path: z.string() }),
  z.object({ op: z.literal('copy'), from: z.string(), path: z.string() }),
]);
export type JsonPatchOp = z.infer<typeof JsonPatchOpSchema>;

/**
 * How far a patch can be trusted: `safe` when exactly one candidate is clearly right (a fixer may
 * apply it unattended), `unsafe` when it is the best of several guesses (apply only when asked).
 */
export const FIX_SAFETIES = ['safe', 'unsafe'] as const;
export type FixSafety = (typeof FIX_SAFETIES)[number];

/** A reference to an artifact: `{ type, name }`. */
export const ArtifactRefSchema = z.object({ type: z.string().min(1), name: z.string() });
export type ArtifactRef = z.infer<typeof ArtifactRefSchema>;

/**
 * Where an issue sits in the file its artifact was read from: the file, an RFC 6901 pointer into
 * *that file* (the artifact's place in it plus the issue's `path`), the 1-based line and column
 * (UTF-16 code units) of that member — or of its deepest existing ancestor when the member is
 * absent — and the issue's `patch` rewritten to the file's coordinates.
 */
export const IssueLocationSchema = z.object({
  file: z.string().min(1),
  pointer: z.string().refine((p) => p === '' || p.startsWith('/'), 'pointer must be an RFC 6901 JSON pointer'),
  line: z.number().int().min(1).optional(),
  column: z.number().int().min(1).optional(),
  endLine: z.number().int().min(1).optional(),
  endColumn: z.number().int().min(1).optional(),
  patch: z.array(JsonPatchOpSchema).min(1).optional(),
});
export type IssueLocation = z.infer<typeof IssueLocationSchema>;

/**
 * The one issue every layer emits. The first seven fields are exactly ObjectStack ADR-0038's
 * BuildIssue; `path`, `draft`, `suggestions`, `patch` and its `fixSafety`, and `location` are additive
 * extensions.
 */
export const BuildIssueSchema = z
  .object({
    layer: z.enum(LAYERS),
    severity: z.enum(SEVERITIES),
    artifact: ArtifactRefSchema,
    ref: z.object({ type: z.string().min(1), name: z.string(), member: z.string().optional() }).optional(),
    code: z.string().regex(/^[a-z][a-z0-9_]*$/),
    message: z.string().min(1),
    fix: z.string().optional(),
    path: z
      .string()
      .refine((p) => p === '' || p.startsWith('/'), 'path must be an RFC 6901 JSON pointer')
      .optional(),
    draft: z.boolean().optional(),
    suggestions: z.array(z.string()).optional(),
    patch: z.array(JsonPatchOpSchema).min(1).optional(),
    fixSafety: z.enum(FIX_SAFETIES).optional(),
    location: IssueLocationSchema.optional(),
  })
  .refine((i) => (i.patch === undefined) === (i.fixSafety === undefined), { message: 'fixSafety is given exactly when a patch is', path: ['fixSafety'] });
export type BuildIssue = z.infer<typeof BuildIssueSchema>;
