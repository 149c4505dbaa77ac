import { z } from 'zod';

/** The four layers that emit issues (design.md). */
export const LAYERS = ['graph', 'render', 'runtime', 'intent'] as const;
export type Layer = (typeof LAYERS)[number];

/** Issue severities; warnings never block publish. */
export const SEVERITIES = ['error', 'warning'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** One RFC 6902 JSON Patch operation. */
export const JsonPatchOpSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('add'), path: z.string(), value: z.unknown() }),
  z.object({ op: z.literal('replace'), path: z.string(), value: z.unknown() }),
  z.object({ op: z.literal('remove'), path: z.string() }),
  z.object({ op: z.literal('test'), path: z.string(), value: z.unknown() }),
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
 * The one issue every layer emits. The first seven fields are exactly ObjectStack ADR-0038's
 * BuildIssue; `path`, `draft`, `suggestions`, `patch` and its `fixSafety` are additive extensions.
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
  })
  .refine((i) => (i.patch === undefined) === (i.fixSafety === undefined), { message: 'fixSafety is given exactly when a patch is', path: ['fixSafety'] });
export type BuildIssue = z.infer<typeof BuildIssueSchema>;
